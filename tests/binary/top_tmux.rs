//! `kinformer top` on a real terminal: tmux runs the binary in a detached pane, the test reads
//! the pane (`capture-pane -p`) until the boxes show, presses keys and checks the process
//! ends with the terminal out of raw mode. And in a pipe, `top` refuses with one line, exit 2.
//!
//! Needs tmux (`apt-get install tmux`; `.ci/run` installs it). Each test runs its own tmux
//! server on a unique socket (`-L`), killed when the test ends, whatever happens.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_kinformer");
/// How long the pane may take to show something (the embedded server starts, the informer
/// lists, the first frame is drawn).
const DEADLINE: Duration = Duration::from_secs(60);
/// Between two looks at the pane.
const POLL: Duration = Duration::from_millis(100);

/// A tmux server of the test's own, running one session; killed on drop.
struct Tmux {
    socket: String,
    dir: tempfile::TempDir,
}

impl Tmux {
    /// Starts `kinformer ARGS` in a `width`×`height` pane. When it ends, the pane's shell
    /// writes its exit code to `exit` and the terminal's settings (`stty -a`) to `stty`.
    fn start(width: u16, height: u16, args: &[&str]) -> Self {
        static NEXT: AtomicU32 = AtomicU32::new(0);
        require_tmux();
        let socket = format!(
            "kinformer-top-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        );
        let dir = tempfile::tempdir().expect("a temporary directory");
        let tmux = Self { socket, dir };
        let script = r#"bin="$1"; out="$2"; shift 2; "$bin" "$@"; code=$?; stty -a > "$out/stty"; echo "$code" > "$out/exit""#;
        let mut command = vec![
            "new-session".to_owned(),
            "-d".to_owned(),
            "-x".to_owned(),
            width.to_string(),
            "-y".to_owned(),
            height.to_string(),
            "sh".to_owned(),
            "-c".to_owned(),
            script.to_owned(),
            "sh".to_owned(),
            BIN.to_owned(),
            tmux.dir.path().display().to_string(),
        ];
        command.extend(args.iter().map(|a| (*a).to_owned()));
        let started = tmux.run(&command);
        assert!(started.status.success(), "tmux new-session: {started:?}");
        tmux
    }

    fn run(&self, args: &[String]) -> Output {
        Command::new("tmux")
            .arg("-L")
            .arg(&self.socket)
            .args(args)
            .env_remove("TMUX")
            .output()
            .expect("tmux runs")
    }

    /// The pane's text.
    fn capture(&self) -> String {
        let out = self.run(&["capture-pane".into(), "-p".into()]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }

    fn press(&self, key: &str) {
        let sent = self.run(&["send-keys".into(), key.into()]);
        assert!(sent.status.success(), "send-keys {key}: {sent:?}");
    }

    /// Waits until the pane shows every one of `needles`; returns that screen.
    fn wait_for(&self, needles: &[&str]) -> String {
        self.wait_until(&format!("{needles:?}"), |screen| {
            needles.iter().all(|n| screen.contains(n))
        })
    }

    /// Waits until the pane's text satisfies `done` (described by `what`); returns it.
    fn wait_until(&self, what: &str, done: impl Fn(&str) -> bool) -> String {
        let deadline = Instant::now() + DEADLINE;
        loop {
            let screen = self.capture();
            if done(&screen) {
                return screen;
            }
            assert!(
                Instant::now() < deadline,
                "the pane never showed {what}; it shows:\n{screen}"
            );
            std::thread::sleep(POLL);
        }
    }

    /// Waits for the program to end; its exit code and the terminal's `stty -a` after it.
    fn wait_for_exit(&self) -> (i32, String) {
        let exit = self.file("exit");
        let deadline = Instant::now() + DEADLINE;
        while !exit.exists() || read(&exit).trim().is_empty() {
            assert!(
                Instant::now() < deadline,
                "kinformer top did not exit; the pane shows:\n{}",
                self.capture()
            );
            std::thread::sleep(POLL);
        }
        let code = read(&exit).trim().parse().expect("an exit code");
        (code, read(&self.file("stty")))
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.path().join(name)
    }
}

impl Drop for Tmux {
    fn drop(&mut self) {
        let _ = self.run(&["kill-server".into()]);
    }
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// Fails loudly when tmux is missing: the test cannot be skipped silently.
fn require_tmux() {
    match Command::new("tmux").arg("-V").output() {
        Ok(out) if out.status.success() => {}
        other => panic!(
            "tmux is required by tests/top_tmux.rs (apt-get install tmux; .ci/run installs it): {other:?}"
        ),
    }
}

/// After the program, the terminal is back in cooked mode: canonical input and echo on.
fn assert_cooked(stty: &str) {
    let flags: Vec<&str> = stty.split_whitespace().collect();
    assert!(
        flags.contains(&"icanon") && flags.contains(&"echo"),
        "the terminal was left in raw mode: {stty}"
    );
}

#[test]
fn top_draws_the_pipeline_boxes_adds_a_handler_shows_events_and_quits_on_q() {
    let tmux = Tmux::start(120, 40, &["top", "pods", "-A", "--embedded"]);
    let screen = tmux.wait_for(&[
        "Reflector",
        "Queue",
        "Indexer",
        "handler default",
        "watching",
        "synced",
    ]);
    assert!(
        screen.contains("kinformer top · pods · all namespaces"),
        "{screen}"
    );
    tmux.press("a");
    tmux.wait_for(&["handler sim-1", "added handler sim-1"]);
    tmux.press("e");
    tmux.wait_for(&["Last events", "handler   handled"]);
    tmux.press("r");
    tmux.wait_until("sim-1's lane removed", |screen| {
        screen.contains("removed handler sim-1") && !screen.contains("┌ handler sim-1 ")
    });
    tmux.press("q");
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 0);
    assert_cooked(&stty);
}

#[test]
fn at_80x24_many_handlers_collapse_into_one_box_and_ctrl_c_exits_130() {
    let handlers = ["a", "b", "c", "d", "e", "f"].map(|h| format!("--handler={h}"));
    let mut args = vec!["top", "pods", "-A", "--embedded"];
    args.extend(handlers.iter().map(String::as_str));
    let tmux = Tmux::start(80, 24, &args);
    tmux.wait_for(&["Reflector", "Queue", "Indexer", "Handlers (6)", "synced"]);
    tmux.press("C-c");
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 130, "Ctrl-C is an interrupt");
    assert_cooked(&stty);
}

#[test]
fn several_resources_get_a_view_each_and_tab_moves_between_them() {
    let tmux = Tmux::start(120, 40, &["top", "pods,deploy", "-A", "--embedded"]);
    tmux.wait_for(&[
        "pods · all namespaces · 1/2 · Tab: next",
        "Reflector",
        "synced",
    ]);
    tmux.press("Tab");
    tmux.wait_for(&["deployments · all namespaces · 2/2", "Indexer"]);
    tmux.press("Tab");
    tmux.wait_for(&["pods · all namespaces · 1/2"]);
    tmux.press("q");
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 0);
    assert_cooked(&stty);
}

#[test]
fn a_recording_replays_in_the_view_and_the_end_of_the_file_is_said() {
    let dir = tempfile::tempdir().expect("a temporary directory");
    let file = dir.path().join("pods.jsonl");
    let file = file.to_str().expect("a UTF-8 path");
    let recorded = Command::new(BIN)
        .args([
            "record",
            "pods,deploy",
            "-A",
            "--embedded",
            "--timeout",
            "2s",
            "-o",
            file,
        ])
        .output()
        .expect("kinformer record runs");
    assert!(recorded.status.success(), "{recorded:?}");
    let tmux = Tmux::start(120, 40, &["replay", file, "--top", "--speed", "max"]);
    tmux.wait_for(&[
        "pods · replay of",
        "1/2 · Tab: next",
        "Reflector",
        "replay ended: end of file",
    ]);
    tmux.press("Tab");
    tmux.wait_for(&["deployments.apps · replay of", "2/2"]);
    tmux.press("q");
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 0);
    assert_cooked(&stty);
}

/// A child process killed when the test ends, whatever happens.
struct Killed(std::process::Child);

impl Drop for Killed {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn top_attaches_to_a_go_taps_endpoint_and_draws_the_controllers_real_handlers() {
    use std::io::BufRead;
    let runtime = tokio::runtime::Runtime::new().expect("a runtime for the embedded server");
    let cluster = runtime.block_on(crate::binary::Cluster::start());
    crate::go_tap::kubectl(&cluster.kubeconfig(), &["create", "namespace", "attached"]);
    // The client-go example (go/tap/examples/informer) writes ConfigMaps faster than its
    // slow handler takes them, and streams its tap on a loopback port of its own choosing.
    let mut example = Killed(
        Command::new(crate::go_tap::example("informer"))
            .arg("-kubeconfig")
            .arg(cluster.kubeconfig())
            .args([
                "-namespace",
                "attached",
                "-tap-listen",
                "127.0.0.1:0",
                "-create",
                "400",
            ])
            .args(["-rate", "100", "-delay", "50ms", "-backlog-window", "300ms"])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("the example starts"),
    );
    let stderr = example.0.stderr.take().expect("stderr");
    let mut first = String::new();
    std::io::BufReader::new(stderr)
        .read_line(&mut first)
        .expect("the example's stderr");
    let url = first
        .trim()
        .strip_prefix("tap: listening on ")
        .unwrap_or_else(|| panic!("the example's first line: {first:?}"))
        .to_owned();
    let tmux = Tmux::start(120, 40, &["top", "--attach", &url]);
    let screen = tmux.wait_for(&[
        "Reflector",
        "handler slow",
        "handler fast",
        "synced",
        "diagnosis: handler slow falls behind",
    ]);
    assert!(
        screen.contains("configmaps · Go tap at 127.0.0.1:"),
        "{screen}"
    );
    tmux.press("q");
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 0);
    assert_cooked(&stty);
}

#[test]
fn top_attach_to_an_address_where_no_tap_listens_is_one_line_and_exit_5() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    let addr = listener.local_addr().expect("its address");
    drop(listener);
    let tmux = Tmux::start(
        100,
        20,
        &["top", "--attach", &format!("http://{addr}/trace")],
    );
    let (code, stty) = tmux.wait_for_exit();
    assert_eq!(code, 5, "docs/exit-status.md: the server is unreachable");
    assert_cooked(&stty);
}

#[test]
fn top_in_a_pipe_refuses_with_one_line_and_exit_2() {
    let out = Command::new(BIN)
        .args(["top", "pods", "-A", "--embedded"])
        .output()
        .expect("kinformer runs");
    assert_eq!(out.status.code(), Some(2));
    assert!(out.stdout.is_empty());
    assert_eq!(
        String::from_utf8_lossy(&out.stderr),
        "error: kinformer top draws on a terminal; use 'kinformer watch' for a stream\n"
    );
}

/// The demo's table at 80 columns: the compact header names every column in the full
/// layout's order, and the narration comes after the header, wrapped between words (tmux
/// would cut an unwrapped line mid-word).
#[test]
fn the_demo_at_80_columns_reads_in_column_order_with_its_narration_wrapped_after_the_header() {
    let tmux = Tmux::start(80, 100, &["demo", "--timeout", "5s"]);
    let screen = tmux.wait_until("the initial sync's narration", |s| {
        s.contains("initial list)")
    });
    let lines: Vec<&str> = screen.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("TIME "))
        .expect(&screen);
    let columns: Vec<&str> = lines[header].split_whitespace().collect();
    assert_eq!(
        columns,
        ["TIME", "STAGE", "EVENT", "KEY", "RV", "DETAIL"],
        "{screen}"
    );
    let told = lines
        .iter()
        .position(|l| l.starts_with("── initial sync"))
        .expect(&screen);
    assert!(header < told, "the narration before the header:\n{screen}");
    let mut paragraph = vec![lines[told]];
    paragraph.extend(
        lines[told + 1..]
            .iter()
            .take_while(|l| l.starts_with("   ")),
    );
    let words = paragraph
        .concat()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    let said = words.contains("every handler got an add per pod (the ×");
    assert!(said, "cut mid-word: {paragraph:#?}");
}

#[test]
fn a_scenarios_description_wraps_between_words_at_80_columns() {
    let tmux = Tmux::start(
        80,
        60,
        &["demo", "--scenario", "relist-after-410", "--timeout", "5s"],
    );
    let screen = tmux.wait_until("the table's header", |s| {
        s.lines().any(|l| l.starts_with("TIME "))
    });
    let lines: Vec<&str> = screen.lines().collect();
    let intro = lines
        .iter()
        .position(|l| l.starts_with("scenario: "))
        .expect(&screen);
    let header = lines
        .iter()
        .position(|l| l.starts_with("TIME "))
        .expect(&screen);
    // Joined with spaces, a line the terminal cut mid-word would read "refl ector's".
    let paragraph = &lines[intro..header];
    let text = paragraph.join(" ");
    assert!(
        text.contains("the reflector's re-watch gets 410 Gone"),
        "cut mid-word: {paragraph:#?}"
    );
}

impl Tmux {
    /// The pane's text with its whole scrollback.
    fn capture_all(&self) -> String {
        let out = self.run(&[
            "capture-pane".into(),
            "-p".into(),
            "-J".into(),
            "-S".into(),
            "-".into(),
        ]);
        String::from_utf8_lossy(&out.stdout).into_owned()
    }
}

/// Issue 49 item 3: `kinformer proxy`'s table on a terminal, one client informing on pods and
/// configmaps: at 80 columns (a 16-character STREAM) the two streams stay apart — the client's
/// name is cut, never the resource — and at 200 columns each is whole.
#[test]
fn the_proxys_stream_column_keeps_two_streams_of_one_client_apart_at_80_and_200_columns() {
    for (width, pods, configmaps) in [
        (80, "ki…/pods@default", "configmaps@defa…"),
        (
            200,
            "kinformer/pods@default",
            "kinformer/configmaps@default",
        ),
    ] {
        let dir = tempfile::tempdir().expect("a temporary directory");
        let kubeconfig = dir.path().join("proxy");
        let path = kubeconfig.to_str().expect("a UTF-8 path");
        let tmux = Tmux::start(
            width,
            50,
            &["proxy", "--embedded", "--kubeconfig-out", path],
        );
        let deadline = Instant::now() + DEADLINE;
        while !kubeconfig.exists() {
            assert!(Instant::now() < deadline, "the proxy wrote no kubeconfig");
            std::thread::sleep(POLL);
        }
        let mut client = Command::new(BIN)
            .args([
                "watch",
                "pods,configmaps",
                "-n",
                "default",
                "--kubeconfig",
                path,
            ])
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null())
            .spawn()
            .expect("kinformer watch starts");
        tmux.wait_until("both streams' rows", |s| {
            let rows = |stream: &str| s.lines().filter(|l| l.contains(stream)).count();
            rows(pods) >= 2 && rows(configmaps) >= 2
        });
        let _ = client.kill();
        let _ = client.wait();
        let all = tmux.capture_all();
        assert!(all.contains(" STREAM "), "at {width} columns: {all}");
        // Dropping the tmux server ends the proxy.
    }
}

/// Issue 49 item 8: the demo at 80 columns tells the relist's story truthfully: its closing
/// line names the relist it is about (it comes at the next resync tick, whose own sync
/// updates may be the rows just above it), and the deletes the relist found missed are called
/// missed deletes (tombstones).
#[test]
fn the_demos_relist_story_at_80_columns_names_the_relist_and_the_missed_deletes() {
    let tmux = Tmux::start(80, 50, &["demo", "--timeout", "36s"]);
    tmux.wait_until("the relist's closing line", |_| {
        tmux.capture_all().contains("── back to the relist after")
    });
    let all = tmux.capture_all();
    let lines: Vec<&str> = all.lines().collect();
    let told = lines
        .iter()
        .position(|l| l.starts_with("── back to the relist after 410"))
        .unwrap_or_else(|| panic!("{all}"));
    let mut paragraph = vec![lines[told]];
    paragraph.extend(
        lines[told + 1..]
            .iter()
            .take_while(|l| l.starts_with("   ")),
    );
    let text = paragraph
        .concat()
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ");
    assert!(
        text.contains("its sync updates") && text.contains("resync tick before it"),
        "{text}"
    );
    let relist = lines
        .iter()
        .position(|l| l.starts_with("── 410 Gone"))
        .unwrap_or_else(|| panic!("{all}"));
    let explained: String = lines[relist..told].concat();
    assert!(explained.contains("missed delete"), "{explained}");
    if all.contains(" tombstone ") {
        // The churn deleted pods while the watch was down: their rows flag them as tombstones
        // (five or more to one handler fold into one "N missed deletes (tombstones) to h" row,
        // fewer stay one `kind=delete pending=… tombstone` row each) and the closing line
        // calls them missed deletes.
        let words: Vec<&str> = all.split_whitespace().collect();
        let tombstone_row = words
            .windows(3)
            .any(|w| w[0] == "kind=delete" && w[1].starts_with("pending=") && w[2] == "tombstone");
        assert!(
            words.join(" ").contains("missed deletes (tombstones) to") || tombstone_row,
            "{all}"
        );
        assert!(text.contains("as missed deletes (tombstones"), "{text}");
    }
    let (code, _) = tmux.wait_for_exit();
    assert_eq!(code, 0, "--timeout ends the demo");
}
