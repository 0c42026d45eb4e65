//! [`EmbeddedServer`]: starting the server (bind, seed, serve, churn, controllers), its
//! configuration, and what a running server offers its owner — the URL, a kube client and a
//! kubeconfig for it, faults, direct reads and writes, shutdown.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rand::Rng;
use rand::distr::Alphanumeric;
use tokio::net::TcpListener;
use tokio::sync::watch as watch_channel;
use tokio::task::JoinHandle;

use super::app::App;
use super::error::ServerError;
use super::faults::{Fault, FaultError};
use super::store::Store;
use super::{
    churn, controllers, faults, kubeconfig, listener, objects, resources, seed, server, serving,
    tls, write,
};

/// Where initial objects come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Seed {
    /// A small built-in cluster: 3 nodes, 4 namespaces, ~100 pods owned by replicasets owned by
    /// deployments, configmaps, secrets, services.
    Builtin,
    /// A multi-document YAML file of Kubernetes objects.
    File(PathBuf),
}

/// How to run the server.
#[derive(Debug, Clone)]
pub struct ServerConfig {
    /// Address to listen on (default `127.0.0.1:0`: any free loopback port).
    pub listen: SocketAddr,
    /// Bearer token clients must send; None generates a random one.
    pub token: Option<String>,
    /// false accepts every request (`--no-auth`).
    pub auth: bool,
    /// Initial objects.
    pub seed: Vec<Seed>,
    /// Number of watch events kept; resuming from an older resourceVersion gets 410 Expired.
    pub history: usize,
    /// Writes per second of background pod churn.
    pub churn: Option<f64>,
    /// Interval between BOOKMARK events on watches that allow them (default a minute, about
    /// as often as kube-apiserver sends them; tests shorten it).
    pub bookmark_interval: Duration,
    /// The Kubernetes minor the server behaves as: `/version` reports `v1.{minor}.0` with that
    /// release's Go version and build date (default 37: `v1.37.2`, the release whose API it
    /// serves), and what differs between
    /// releases (aggregated discovery's `v2beta1`, the `/version` members) follows it.
    /// kubectl's dispatcher runs the installed kubectl of that minor, so tests can pin older
    /// clients.
    pub kubernetes_minor: u32,
    /// kube-apiserver's `--watch-cache` (default on): a LIST at resourceVersion "0" is served
    /// from the cache, the current state in one page whatever its `limit`. Off, such a LIST
    /// pages with `limit` as etcd does.
    pub watch_cache: bool,
    /// How long a request for a resourceVersion newer than the server's waits for it before
    /// failing with 504 "Too large resource version" (kube-apiserver: 3 s).
    pub resource_version_wait: Duration,
    /// How long a client may take to send its request headers, and then its body (a slow
    /// client's connection is closed, or its request answered 408).
    pub request_read_timeout: Duration,
    /// Serve HTTPS with a fresh self-signed CA (`kinformer serve`'s default); false serves
    /// plain HTTP (the library's default: in-process clients and tests).
    pub tls: bool,
    /// Run the minimal controllers (Deployment → ReplicaSet → Pods, rollouts, pods Pending →
    /// Running, status, garbage collection); off by default.
    pub controllers: bool,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            listen: SocketAddr::from(([127, 0, 0, 1], 0)),
            token: None,
            auth: true,
            seed: Vec::new(),
            history: 10_000,
            churn: None,
            bookmark_interval: Duration::from_secs(60),
            kubernetes_minor: 37,
            watch_cache: true,
            resource_version_wait: Duration::from_secs(3),
            request_read_timeout: Duration::from_secs(60),
            tls: false,
            controllers: false,
        }
    }
}

/// A running embedded API server.
pub struct EmbeddedServer {
    app: Arc<App>,
    url: String,
    stop: Option<watch_channel::Sender<bool>>,
    serving: Option<JoinHandle<()>>,
    churn: Option<JoinHandle<()>>,
    controllers: Option<JoinHandle<()>>,
    tls: Option<tls::ServingTls>,
}

/// A random 32-character bearer token.
pub fn random_token() -> String {
    rand::rng()
        .sample_iter(Alphanumeric)
        .take(32)
        .map(char::from)
        .collect()
}

fn seed_store(store: &Store, seeds: &[Seed]) -> Result<(), ServerError> {
    for seed in seeds {
        match seed {
            Seed::Builtin => seed::seed_builtin(store)?,
            Seed::File(path) => seed::seed_file(store, path)?,
        }
    }
    Ok(())
}

impl EmbeddedServer {
    /// Binds, seeds and starts serving on the current tokio runtime.
    pub async fn start(config: ServerConfig) -> Result<EmbeddedServer, ServerError> {
        let bind_error = |source| ServerError::Bind {
            addr: config.listen,
            source,
        };
        let listener = TcpListener::bind(config.listen).await.map_err(bind_error)?;
        let address = listener.local_addr().map_err(bind_error)?;
        let store = Arc::new(Store::new(config.history));
        seed::seed_system_objects(&store)?;
        seed_store(&store, &config.seed)?;
        let token = config
            .auth
            .then(|| config.token.clone().unwrap_or_else(random_token));
        let app = Arc::new(App {
            store: Arc::clone(&store),
            token,
            bookmark_interval: config.bookmark_interval,
            kubernetes_minor: config.kubernetes_minor,
            watch_cache: config.watch_cache,
            resource_version_wait: config.resource_version_wait,
            request_read_timeout: config.request_read_timeout,
            closer: watch_channel::channel(0).0,
            shutting_down: AtomicBool::new(false),
            address: address.to_string(),
            faults: faults::Faults::default(),
            issuer: crate::issuer::Issuer::generate()?,
        });
        if config.controllers {
            controllers::settle(&store, config.kubernetes_minor);
        }
        let (stop, stopped) = watch_channel::channel(false);
        let router = server::router(Arc::clone(&app));
        let listener =
            listener::RestartableListener::new(listener, app.faults.subscribe_restarts());
        let timeouts = serving::Timeouts {
            header: config.request_read_timeout,
        };
        let tls = config
            .tls
            .then(|| tls::ServingTls::generate(address.ip()))
            .transpose()?;
        let acceptor = tls.as_ref().map(|t| t.acceptor.clone());
        let serving = tokio::spawn(serving::serve(
            listener, router, acceptor, timeouts, stopped,
        ));
        let controllers = config
            .controllers
            .then(|| controllers::spawn(Arc::clone(&store), config.kubernetes_minor));
        let churn = config.churn.and_then(|rate| churn::spawn(store, rate));
        Ok(EmbeddedServer {
            app,
            url: format!(
                "{}://{address}",
                if tls.is_some() { "https" } else { "http" }
            ),
            stop: Some(stop),
            serving: Some(serving),
            churn,
            controllers,
            tls,
        })
    }

    /// `https://127.0.0.1:PORT`, or `http://` without TLS.
    pub fn url(&self) -> String {
        self.url.clone()
    }

    /// The bearer token clients must send (None with authentication off).
    pub fn token(&self) -> Option<&str> {
        self.app.token.as_deref()
    }

    fn endpoint(&self) -> kubeconfig::Endpoint<'_> {
        kubeconfig::Endpoint {
            url: &self.url,
            token: self.token(),
            ca_pem: self.tls.as_ref().map(|t| t.ca_pem.as_str()),
        }
    }

    /// A kubeconfig with cluster, user and context `kinformer`, set as current (over TLS with
    /// the server's CA as `certificate-authority-data`).
    pub fn kubeconfig_yaml(&self) -> String {
        self.endpoint().kubeconfig_yaml()
    }

    /// Writes [`Self::kubeconfig_yaml`] to `path`, readable by its owner only (mode 0600: it
    /// holds the token).
    pub fn write_kubeconfig(&self, path: &Path) -> std::io::Result<()> {
        self.endpoint().write_kubeconfig(path)
    }

    /// A `kube::Config` for an in-process client (trusting the server's CA over TLS).
    pub fn kube_config(&self) -> kube::Config {
        let ca = self.tls.as_ref().map(|t| t.ca_der.as_slice());
        self.endpoint().kube_config(ca)
    }

    /// An in-process kube client.
    pub fn client(&self) -> kube::Client {
        kube::Client::try_from(self.kube_config())
            .expect("a kube::Config with a URL, a token and at most a CA always builds a client")
    }

    /// Ends every open watch stream cleanly now (clients re-watch from their last RV).
    pub fn close_watches(&self) {
        self.app.closer.send_modify(|generation| *generation += 1);
    }

    /// Forgets every kept event: a watch or list from any older resourceVersion gets 410.
    pub fn trim_history(&self) {
        self.app.store.trim_history();
    }

    /// Forces a 410 on every client: the history is dropped and the resourceVersion advances
    /// past every one handed out so far, so every watch resumed after this relists; the
    /// relist's resourceVersion is watchable.
    pub fn expire_all(&self) {
        self.app.store.expire_all();
    }

    /// Causes a fault now (the library side of `POST /kinformer/v1/faults`); an invalid value
    /// is refused with what is wrong.
    pub fn inject(&self, fault: &Fault) -> Result<(), FaultError> {
        fault.validate()?;
        self.app.inject(fault, None);
        Ok(())
    }

    /// The current global resourceVersion.
    pub fn resource_version(&self) -> u64 {
        self.app.store.resource_version()
    }

    /// Stores objects directly, without watch events (fast seeding for benchmarks). Each object
    /// needs `apiVersion`, `kind` and `metadata.name` (namespaced ones default to `default`).
    /// Resuming a watch or list from before this call gets 410. Returns how many were stored.
    pub fn seed_objects(
        &self,
        objects: impl IntoIterator<Item = serde_json::Value>,
    ) -> Result<usize, ServerError> {
        write::seed_unrecorded(&self.app.store, objects).map_err(ServerError::Rejected)
    }

    /// Creates one object through the normal write path (with a watch event), its `status`
    /// as given (an HTTP create starts from the type's empty status).
    pub fn create_object(&self, object: serde_json::Value) -> Result<(), ServerError> {
        write::create_object(&self.app.store, object)
            .map(drop)
            .map_err(ServerError::Rejected)
    }

    /// The core (`v1`) or any group's resource type called `plural`.
    fn resource_named(&self, plural: &str) -> Result<Arc<resources::ResourceType>, ServerError> {
        let registry = self.app.store.registry();
        registry
            .find("", "v1", plural)
            .or_else(|| {
                let groups = registry.groups();
                groups.iter().find_map(|(group, versions)| {
                    versions
                        .iter()
                        .find_map(|v| registry.find(group, v, plural))
                })
            })
            .ok_or_else(|| ServerError::UnknownResource(plural.to_owned()))
    }

    /// Every object of resource `plural` (in `namespace`, or all), as stored, in key order.
    pub fn objects(
        &self,
        plural: &str,
        namespace: Option<&str>,
    ) -> Result<Vec<serde_json::Value>, ServerError> {
        let key = self.resource_named(plural)?.key();
        let stored = self
            .app
            .store
            .write(|txn| Ok(txn.objects(&key)))
            .map_err(ServerError::Rejected)?;
        Ok(stored
            .iter()
            .filter(|o| namespace.is_none_or(|ns| o.namespace() == ns))
            .filter_map(|o| serde_json::from_slice(&o.bytes).ok())
            .collect())
    }

    /// The object of resource `plural` called `name` in `namespace` (empty for cluster-scoped
    /// objects), as stored; None when there is none.
    pub fn get_object(
        &self,
        plural: &str,
        namespace: &str,
        name: &str,
    ) -> Result<Option<serde_json::Value>, ServerError> {
        let resource = self.resource_named(plural)?.key();
        let stored = self
            .app
            .store
            .get(&resource, &objects::object_key(namespace, name));
        Ok(stored.and_then(|o| serde_json::from_slice(&o.bytes).ok()))
    }

    /// Waits until `condition` holds for every object of resource `plural` (all namespaces, as
    /// [`Self::objects`] gives them), looking now and after each write, for at most `timeout`;
    /// returns the objects it held for. A test's deadline, not a sleep.
    pub async fn wait_for(
        &self,
        plural: &str,
        timeout: Duration,
        mut condition: impl FnMut(&[serde_json::Value]) -> bool,
    ) -> Result<Vec<serde_json::Value>, ServerError> {
        // Subscribed before the first look: a write in between still wakes the wait.
        let mut writes = self.app.store.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let objects = self.objects(plural, None)?;
            if condition(&objects) {
                return Ok(objects);
            }
            // A lagging receiver only means there were many writes: look again.
            if tokio::time::timeout_at(deadline, writes.recv())
                .await
                .is_err()
            {
                return Err(ServerError::WaitTimeout {
                    resource: plural.to_owned(),
                    after: timeout,
                });
            }
        }
    }

    /// Replaces an object of resource `plural` addressed by its own metadata (with a watch
    /// event); a stale `metadata.resourceVersion` is a conflict. Its `status` is written too,
    /// as a controller writing the object and its `/status` would (an HTTP write of the object
    /// itself keeps the stored status of resources with a status subresource).
    pub fn update_object(
        &self,
        plural: &str,
        object: serde_json::Value,
    ) -> Result<(), ServerError> {
        let resource = self.resource_named(plural)?;
        write::update_object(&self.app.store, &resource, object)
            .map(drop)
            .map_err(ServerError::Rejected)
    }

    /// Deletes one object (with a watch event).
    pub fn delete_object(
        &self,
        plural: &str,
        namespace: &str,
        name: &str,
    ) -> Result<(), ServerError> {
        let resource = self.resource_named(plural)?;
        write::delete_object(&self.app.store, &resource, namespace, name)
            .map(drop)
            .map_err(ServerError::Rejected)
    }

    /// Replaces existing objects of resource `plural`, each given as namespace (empty for
    /// cluster-scoped objects), name and JSON body, as a PUT of each would (the body's
    /// `metadata.name` must be the name; a stale `metadata.resourceVersion` is a conflict;
    /// `status` written too, as [`Self::update_object`] writes it): one
    /// watch event each, written in batches (benchmarks), defaulted and recorded in
    /// `managedFields` as every write is. Returns how many were written.
    pub fn replace_objects<N, B>(
        &self,
        plural: &str,
        objects: impl IntoIterator<Item = (N, N, B)>,
    ) -> Result<usize, ServerError>
    where
        N: AsRef<str>,
        B: AsRef<[u8]>,
    {
        let resource = self.resource_named(plural)?;
        write::replace_many(&self.app.store, &resource, objects).map_err(ServerError::Rejected)
    }

    /// Stops the listener, ends watches and connections, stops churn.
    pub async fn shutdown(mut self) {
        self.stop_now();
        if let Some(serving) = self.serving.take() {
            let abort = serving.abort_handle();
            if tokio::time::timeout(Duration::from_secs(5), serving)
                .await
                .is_err()
            {
                abort.abort();
            }
        }
    }

    fn stop_now(&mut self) {
        self.app.shutting_down.store(true, Ordering::SeqCst);
        self.close_watches();
        for task in [self.churn.take(), self.controllers.take()]
            .into_iter()
            .flatten()
        {
            task.abort();
        }
        if let Some(stop) = self.stop.take() {
            // The server task may already be gone; nothing left to stop then.
            let _ = stop.send(true);
        }
    }
}

impl Drop for EmbeddedServer {
    fn drop(&mut self) {
        self.stop_now();
        if let Some(serving) = self.serving.take() {
            serving.abort();
        }
    }
}
