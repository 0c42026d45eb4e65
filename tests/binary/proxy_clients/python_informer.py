"""A controller-like client written with the Python `kubernetes` package (nobody here wrote
it): LIST, then WATCH from the list's resourceVersion, re-watch from the last one when a watch
ends or the server answers 5xx, relist on 410 Gone, as an informer does. Used by tests/proxy.rs behind `kinformer proxy`.

Usage: python_informer.py PROXY_KUBECONFIG DIRECT_KUBECONFIG NAMESPACE STOP_FILE

Prints one JSON object per line on stdout: the sha256 of the same LIST body (configmaps, not
the informer's pods) read through the proxy and directly, `listed`, each watch event, `expired` on a 410, and at the end its `cache`
(key -> resourceVersion).
"""

import hashlib
import json
import os
import sys
import time

from kubernetes import client, config, watch
from kubernetes.client.rest import ApiException


def say(**line):
    print(json.dumps(line), flush=True)


def api(path):
    return client.CoreV1Api(config.new_client_from_config(config_file=path))


def main():
    proxy_config, direct_config, namespace, stop_file = sys.argv[1:5]
    proxy, direct = api(proxy_config), api(direct_config)
    for name, side in (("proxy", proxy), ("direct", direct)):
        body = side.list_namespaced_config_map(namespace, _preload_content=False).data
        say(event="hash", side=name, sha256=hashlib.sha256(body).hexdigest(), bytes=len(body))
    cache, rv = {}, None
    while not os.path.exists(stop_file):
        if rv is None:
            listed = proxy.list_namespaced_pod(namespace)
            rv = listed.metadata.resource_version
            cache = {f"{p.metadata.namespace}/{p.metadata.name}": p.metadata.resource_version for p in listed.items}
            say(event="listed", rv=rv, items=len(cache))
        try:
            stream = watch.Watch().stream(
                proxy.list_namespaced_pod, namespace, resource_version=rv, timeout_seconds=3
            )
            for event in stream:
                if event["type"] == "ERROR":
                    raise ApiException(status=event["raw_object"].get("code", 500))
                meta = event["object"].metadata
                key = f"{meta.namespace}/{meta.name}"
                rv = meta.resource_version
                if event["type"] == "DELETED":
                    cache.pop(key, None)
                else:
                    cache[key] = rv
                say(event="watch", type=event["type"], key=key, rv=rv)
        except ApiException as e:
            if e.status in (500, 502, 503, 504):
                # A server restarting (the proxy answers 502 while it cannot reach it):
                # re-watch from the same resourceVersion after a pause, as client-go does.
                say(event="retry", status=e.status, rv=rv)
                time.sleep(0.5)
                continue
            if e.status != 410:
                raise
            say(event="expired", rv=rv)
            rv = None
    say(event="cache", objects=cache)


if __name__ == "__main__":
    main()
