
use builtin;
use str;

set edit:completion:arg-completer[kinformer] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'kinformer'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'kinformer'= {
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand watch 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)'
            cand dump 'List RESOURCE through an informer and print the cache and its indices'
            cand resync 'Debug resync: show each handler''s schedule, every resync tick and a timeline'
            cand top 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler'
            cand demo 'Run against an embedded API server with generated churn (no cluster needed)'
            cand serve 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)'
            cand profiles 'Print what each client-go release profile (--client-go) switches'
            cand completions 'Print a shell completion script to stdout'
            cand man 'Print the man page, or write every page into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kinformer;watch'= {
            cand --count 'Stop after N printed events, N ≥ 1 (the exit summary follows)'
            cand --timeout 'Stop after this long (e.g. 30s, 5m)'
            cand --kubeconfig 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)'
            cand --context 'The name of the kubeconfig context to use'
            cand -n 'The namespace scope (default: the context''s namespace)'
            cand --namespace 'The namespace scope (default: the context''s namespace)'
            cand -l 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --selector 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --field-selector 'Field selector (e.g. --field-selector spec.nodeName=node-a)'
            cand --churn 'Pod writes per second on the --embedded server (0 = a static cluster)'
            cand --retry-timeout 'How long to keep retrying an unreachable server (with backoff) before giving up (exit 5)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --show 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all'
            cand --handler 'Add an event handler: NAME[:resync=DUR][:delay=DUR] (repeatable; default one `default`)'
            cand --resync 'The informer''s default resync period (0 = never)'
            cand --index 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner'
            cand --client-go 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy'
            cand --queue 'The queue between reflector and indexer (default: the --client-go release''s)'
            cand --page-size 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize; 0 = unpaged. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)'
            cand --watch-list 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)'
            cand --max-backoff 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)'
            cand --on-panic 'What a panicking handler does: crash (client-go''s default) or skip the notification'
            cand --transform 'Transform objects before they are queued'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --until-synced 'Stop once the informer has synced (the initial list was delivered)'
            cand -w 'Accepted for kubectl''s `get -w` habit; watch always watches'
            cand --watch 'Accepted for kubectl''s `get -w` habit; watch always watches'
            cand -A 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --all-namespaces 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --embedded 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
            cand --no-headers 'Don''t print table headers'
            cand --diff 'Print field-level diffs of update notifications'
            cand --show-secret-data 'Show Secret data and stringData values (redacted by default)'
            cand --metadata-only 'Watch only metadata (PartialObjectMetadata)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;dump'= {
            cand --kubeconfig 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)'
            cand --context 'The name of the kubeconfig context to use'
            cand -n 'The namespace scope (default: the context''s namespace)'
            cand --namespace 'The namespace scope (default: the context''s namespace)'
            cand -l 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --selector 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --field-selector 'Field selector (e.g. --field-selector spec.nodeName=node-a)'
            cand --churn 'Pod writes per second on the --embedded server (0 = a static cluster)'
            cand --retry-timeout 'How long to keep retrying an unreachable server (with backoff) before giving up (exit 5)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --show 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all'
            cand --handler 'Add an event handler: NAME[:resync=DUR][:delay=DUR] (repeatable; default one `default`)'
            cand --resync 'The informer''s default resync period (0 = never)'
            cand --index 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner'
            cand --client-go 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy'
            cand --queue 'The queue between reflector and indexer (default: the --client-go release''s)'
            cand --page-size 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize; 0 = unpaged. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)'
            cand --watch-list 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)'
            cand --max-backoff 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)'
            cand --on-panic 'What a panicking handler does: crash (client-go''s default) or skip the notification'
            cand --transform 'Transform objects before they are queued'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -A 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --all-namespaces 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --embedded 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
            cand --no-headers 'Don''t print table headers'
            cand --diff 'Print field-level diffs of update notifications'
            cand --show-secret-data 'Show Secret data and stringData values (redacted by default)'
            cand --metadata-only 'Watch only metadata (PartialObjectMetadata)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;resync'= {
            cand --duration 'How long to run before printing the timeline'
            cand --kubeconfig 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)'
            cand --context 'The name of the kubeconfig context to use'
            cand -n 'The namespace scope (default: the context''s namespace)'
            cand --namespace 'The namespace scope (default: the context''s namespace)'
            cand -l 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --selector 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --field-selector 'Field selector (e.g. --field-selector spec.nodeName=node-a)'
            cand --churn 'Pod writes per second on the --embedded server (0 = a static cluster)'
            cand --retry-timeout 'How long to keep retrying an unreachable server (with backoff) before giving up (exit 5)'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --show 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all'
            cand --handler 'Add an event handler: NAME[:resync=DUR][:delay=DUR] (repeatable; default one `default`)'
            cand --resync 'The informer''s default resync period (0 = never)'
            cand --index 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner'
            cand --client-go 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy'
            cand --queue 'The queue between reflector and indexer (default: the --client-go release''s)'
            cand --page-size 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize; 0 = unpaged. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)'
            cand --watch-list 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)'
            cand --max-backoff 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)'
            cand --on-panic 'What a panicking handler does: crash (client-go''s default) or skip the notification'
            cand --transform 'Transform objects before they are queued'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -A 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --all-namespaces 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --embedded 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
            cand --no-headers 'Don''t print table headers'
            cand --diff 'Print field-level diffs of update notifications'
            cand --show-secret-data 'Show Secret data and stringData values (redacted by default)'
            cand --metadata-only 'Watch only metadata (PartialObjectMetadata)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;top'= {
            cand --scenario 'Play a scenario file on the --embedded server (its writes, faults and handler steps)'
            cand --kubeconfig 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)'
            cand --context 'The name of the kubeconfig context to use'
            cand -n 'The namespace scope (default: the context''s namespace)'
            cand --namespace 'The namespace scope (default: the context''s namespace)'
            cand -l 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --selector 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)'''
            cand --field-selector 'Field selector (e.g. --field-selector spec.nodeName=node-a)'
            cand --churn 'Pod writes per second on the --embedded server (0 = a static cluster)'
            cand --retry-timeout 'How long to keep retrying an unreachable server (with backoff) before giving up (exit 5)'
            cand --handler 'Add an event handler: NAME[:resync=DUR][:delay=DUR] (repeatable; default one `default`)'
            cand --resync 'The informer''s default resync period (0 = never)'
            cand --index 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner'
            cand --client-go 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy'
            cand --queue 'The queue between reflector and indexer (default: the --client-go release''s)'
            cand --page-size 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize; 0 = unpaged. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)'
            cand --watch-list 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)'
            cand --max-backoff 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)'
            cand --on-panic 'What a panicking handler does: crash (client-go''s default) or skip the notification'
            cand --transform 'Transform objects before they are queued'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -A 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --all-namespaces 'Watch across all namespaces (the namespace flag and context are then ignored)'
            cand --embedded 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
            cand --metadata-only 'Watch only metadata (PartialObjectMetadata)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;demo'= {
            cand --duration 'Stop after this long (default: run until interrupted)'
            cand --churn 'Writes per second the embedded server makes (creates, updates, deletes)'
            cand --scenario 'Play a scenario file (timed writes, faults, handler changes) instead of churning'
            cand -o 'Output format'
            cand --output 'Output format'
            cand --index 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner'
            cand --client-go 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy'
            cand --queue 'The queue between reflector and indexer (default: the --client-go release''s)'
            cand --page-size 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize; 0 = unpaged. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)'
            cand --watch-list 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)'
            cand --max-backoff 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)'
            cand --on-panic 'What a panicking handler does: crash (client-go''s default) or skip the notification'
            cand --transform 'Transform objects before they are queued'
            cand --show 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all'
            cand --resync 'The informer''s default resync period (0 = never)'
            cand --handler 'Add an event handler: NAME[:resync=DUR][:delay=DUR] (repeatable; replaces the demo''s fast and slow)'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --no-headers 'Don''t print table headers'
            cand --diff 'Print field-level diffs of update notifications'
            cand --show-secret-data 'Show Secret data and stringData values (redacted by default)'
            cand --metadata-only 'Watch only metadata (PartialObjectMetadata)'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;serve'= {
            cand --listen 'Address to listen on (port 0 picks a free port)'
            cand --kubeconfig-out 'Write a kubeconfig for the server to PATH'
            cand --token 'Bearer token clients must send (default: a random one)'
            cand --seed 'Objects to start with: `builtin` or a YAML file (repeatable)'
            cand --history 'How many events the watch history keeps (older resourceVersions get 410 Gone)'
            cand --churn 'Writes per second to generate (0 = none)'
            cand --scenario 'Play a scenario file''s writes and faults (handler steps are skipped with a warning)'
            cand --watch-cache 'Serve LISTs at resourceVersion 0 from the watch cache, in one page ignoring limit'
            cand --bookmark-interval 'Interval between BOOKMARK events on watches that ask for them'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --no-auth 'Accept requests without a token'
            cand --insecure-http 'Serve plain HTTP instead of HTTPS (the kubeconfig then carries the token in the URL)'
            cand --controllers 'Run minimal controllers: Deployment → ReplicaSet → Pods, rollouts, pods become Running'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;profiles'= {
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;completions'= {
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;man'= {
            cand --out-dir 'Write kinformer.1 and one page per subcommand into DIR (default: print kinformer.1)'
            cand -v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand --v 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand -V 'Print version'
            cand --version 'Print version'
        }
        &'kinformer;help'= {
            cand watch 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)'
            cand dump 'List RESOURCE through an informer and print the cache and its indices'
            cand resync 'Debug resync: show each handler''s schedule, every resync tick and a timeline'
            cand top 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler'
            cand demo 'Run against an embedded API server with generated churn (no cluster needed)'
            cand serve 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)'
            cand profiles 'Print what each client-go release profile (--client-go) switches'
            cand completions 'Print a shell completion script to stdout'
            cand man 'Print the man page, or write every page into a directory'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'kinformer;help;watch'= {
        }
        &'kinformer;help;dump'= {
        }
        &'kinformer;help;resync'= {
        }
        &'kinformer;help;top'= {
        }
        &'kinformer;help;demo'= {
        }
        &'kinformer;help;serve'= {
        }
        &'kinformer;help;profiles'= {
        }
        &'kinformer;help;completions'= {
        }
        &'kinformer;help;man'= {
        }
        &'kinformer;help;help'= {
        }
    ]
    $completions[$command]
}
