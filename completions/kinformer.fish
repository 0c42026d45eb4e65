# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_kinformer_global_optspecs
    string join \n v/v= h/help V/version
end

function __fish_kinformer_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_kinformer_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_kinformer_using_subcommand
    set -l cmd (__fish_kinformer_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c kinformer -n "__fish_kinformer_needs_command" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_needs_command" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "watch" -d 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "dump" -d 'List RESOURCE through an informer and print the cache and its indices'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "resync" -d 'Debug resync: show each handler\'s schedule, every resync tick and a timeline'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "top" -d 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "demo" -d 'Run against an embedded API server with generated churn (no cluster needed)'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "record" -d 'Record RESOURCE\'s raw LIST pages and WATCH frames, with their timing, to a file'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "replay" -d 'Feed a record file through the informer pipeline offline (deterministic)'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "serve" -d 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "proxy" -d 'Relay any client to the API server and show what its informers did (records them too)'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "report" -d 'Draw a run as one self-contained HTML page: timeline, plots, markers, object stories'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "explain" -d 'Tell one object\'s story in a run: server states, deltas, cache writes, notifications'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "profiles" -d 'Print what each client-go release profile (--client-go) switches'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "scenarios" -d 'List the built-in scenarios (demo --scenario NAME plays one) and what each shows'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "man" -d 'Print the man page, or write every page into a directory'
complete -c kinformer -n "__fish_kinformer_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l count -d 'Stop after N notifications (handler notify events, shown or not), N ≥ 1; the informer stopped line and the exit summary follow' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l timeout -l duration -d 'Stop after this long (e.g. 30s, 5m; 0 = no limit, as kubectl)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l report -d 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l kubeconfig -d 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s n -l namespace -d 'The namespace scope (default: the context\'s namespace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s l -l selector -d 'Label selector, e.g. app=web,tier!=db or \'env in (prod,staging)\'' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l field-selector -d 'Field selector (e.g. --field-selector spec.nodeName=node-a)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s s -l server -d 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster\'s; without a scheme, https://)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l token -d 'Bearer token for authentication to the API server (replaces the kubeconfig user\'s credentials)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l as -d 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l as-group -d 'Group to impersonate for the operation (repeatable; needs --as)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l request-timeout -d 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l retry-timeout -d 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l content-type -d 'The wire format to ask the server for: json, or protobuf as client-go\'s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)' -r -f -a "json\t'application/json'
protobuf\t'application/vnd.kubernetes.protobuf, application/json'"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s o -l output -d 'Output format; also kubectl\'s custom-columns=SPEC (the table with those columns, as --columns SPEC)' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l show -d 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)' -r -f -a "reflector\t''
lifecycle\t''
deltas\t''
fifo\t''
indexer\t''
notifications\t''
handled\t''
handlers\t''
handler\t''
resync\t''
all\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l kinds -d 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l columns -d 'The object\'s fields on notification rows (tables), kubectl\'s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource\'s default columns' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l until-synced -d 'Stop once the informer has synced (the initial list was delivered)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s w -l watch -d 'Accepted for kubectl\'s `get -w` habit; watch always watches'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s A -l all-namespaces -d 'Watch across all namespaces (the namespace flag and context are then ignored)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l embedded -d 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l insecure-skip-tls-verify -d 'Do not verify the server\'s certificate (insecure: anyone on the way can read and change the traffic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l retry-connect -d 'When the first connection is refused or the host is unknown, retry with client-go\'s backoff for --retry-timeout instead of failing at once (as kubectl does)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l diff -d 'Print field-level diffs of update notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l show-secret-data -d 'Show Secret data and stringData values (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand watch" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l by-index -d 'Print only the objects under one value of one index (client-go\'s ByIndex): `namespace` or an --index\'s NAME' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l kubeconfig -d 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s n -l namespace -d 'The namespace scope (default: the context\'s namespace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s l -l selector -d 'Label selector, e.g. app=web,tier!=db or \'env in (prod,staging)\'' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l field-selector -d 'Field selector (e.g. --field-selector spec.nodeName=node-a)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s s -l server -d 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster\'s; without a scheme, https://)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l token -d 'Bearer token for authentication to the API server (replaces the kubeconfig user\'s credentials)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l as -d 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l as-group -d 'Group to impersonate for the operation (repeatable; needs --as)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l request-timeout -d 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l retry-timeout -d 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l content-type -d 'The wire format to ask the server for: json, or protobuf as client-go\'s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)' -r -f -a "json\t'application/json'
protobuf\t'application/vnd.kubernetes.protobuf, application/json'"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s o -l output -d 'Output format; also kubectl\'s custom-columns=SPEC (the table with those columns, as --columns SPEC)' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l show -d 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)' -r -f -a "reflector\t''
lifecycle\t''
deltas\t''
fifo\t''
indexer\t''
notifications\t''
handled\t''
handlers\t''
handler\t''
resync\t''
all\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l kinds -d 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l columns -d 'The object\'s fields on notification rows (tables), kubectl\'s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource\'s default columns' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s A -l all-namespaces -d 'Watch across all namespaces (the namespace flag and context are then ignored)'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l embedded -d 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l insecure-skip-tls-verify -d 'Do not verify the server\'s certificate (insecure: anyone on the way can read and change the traffic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l retry-connect -d 'When the first connection is refused or the host is unknown, retry with client-go\'s backoff for --retry-timeout instead of failing at once (as kubectl does)'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l diff -d 'Print field-level diffs of update notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l show-secret-data -d 'Show Secret data and stringData values (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand dump" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l timeout -l duration -d 'How long to run before printing the timeline (0 = until Ctrl-C)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l kubeconfig -d 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s n -l namespace -d 'The namespace scope (default: the context\'s namespace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s l -l selector -d 'Label selector, e.g. app=web,tier!=db or \'env in (prod,staging)\'' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l field-selector -d 'Field selector (e.g. --field-selector spec.nodeName=node-a)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s s -l server -d 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster\'s; without a scheme, https://)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l token -d 'Bearer token for authentication to the API server (replaces the kubeconfig user\'s credentials)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l as -d 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l as-group -d 'Group to impersonate for the operation (repeatable; needs --as)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l request-timeout -d 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l retry-timeout -d 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l content-type -d 'The wire format to ask the server for: json, or protobuf as client-go\'s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)' -r -f -a "json\t'application/json'
protobuf\t'application/vnd.kubernetes.protobuf, application/json'"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s o -l output -d 'Output format; also kubectl\'s custom-columns=SPEC (the table with those columns, as --columns SPEC)' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l show -d 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)' -r -f -a "reflector\t''
lifecycle\t''
deltas\t''
fifo\t''
indexer\t''
notifications\t''
handled\t''
handlers\t''
handler\t''
resync\t''
all\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l kinds -d 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l columns -d 'The object\'s fields on notification rows (tables), kubectl\'s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource\'s default columns' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s A -l all-namespaces -d 'Watch across all namespaces (the namespace flag and context are then ignored)'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l embedded -d 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l insecure-skip-tls-verify -d 'Do not verify the server\'s certificate (insecure: anyone on the way can read and change the traffic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l retry-connect -d 'When the first connection is refused or the host is unknown, retry with client-go\'s backoff for --retry-timeout instead of failing at once (as kubectl does)'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l diff -d 'Print field-level diffs of update notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l show-secret-data -d 'Show Secret data and stringData values (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand resync" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l scenario -d 'Play a scenario on the --embedded server (its writes, faults and handler steps): a file, or a built-in one by NAME (kinformer scenarios lists them)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l attach -d 'Draw a running Go controller\'s own informers instead, from its Go tap\'s endpoint (http://HOST:PORT/trace; docs/debug-go-controller.md): no resource, no informer of ours' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l kubeconfig -d 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s n -l namespace -d 'The namespace scope (default: the context\'s namespace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s l -l selector -d 'Label selector, e.g. app=web,tier!=db or \'env in (prod,staging)\'' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l field-selector -d 'Field selector (e.g. --field-selector spec.nodeName=node-a)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s s -l server -d 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster\'s; without a scheme, https://)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l token -d 'Bearer token for authentication to the API server (replaces the kubeconfig user\'s credentials)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l as -d 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l as-group -d 'Group to impersonate for the operation (repeatable; needs --as)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l request-timeout -d 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l retry-timeout -d 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l content-type -d 'The wire format to ask the server for: json, or protobuf as client-go\'s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)' -r -f -a "json\t'application/json'
protobuf\t'application/vnd.kubernetes.protobuf, application/json'"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s A -l all-namespaces -d 'Watch across all namespaces (the namespace flag and context are then ignored)'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l embedded -d 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l insecure-skip-tls-verify -d 'Do not verify the server\'s certificate (insecure: anyone on the way can read and change the traffic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l retry-connect -d 'When the first connection is refused or the host is unknown, retry with client-go\'s backoff for --retry-timeout instead of failing at once (as kubectl does)'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand top" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l timeout -l duration -d 'Stop after this long (default, or 0: run until interrupted)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l churn -d 'Writes per second the embedded server makes (creates, updates, deletes)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l scenario -d 'Play a scenario (timed writes, faults, handler changes) instead of churning: a file, or a built-in one by NAME: broken-stream-vs-410, delete-during-disconnect, delta-vs-real-fifo, late-handler, relist-after-410, slow-handler-backlog, three-handlers-resync, throttled-server, version-differences (kinformer scenarios says what each shows)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l record -d 'Also record the informer\'s LIST pages and WATCH frames to FILE (see kinformer record)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l report -d 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -s o -l output -d 'Output format; also kubectl\'s custom-columns=SPEC (the table with those columns, as --columns SPEC)' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l show -d 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)' -r -f -a "reflector\t''
lifecycle\t''
deltas\t''
fifo\t''
indexer\t''
notifications\t''
handled\t''
handlers\t''
handler\t''
resync\t''
all\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l kinds -d 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l columns -d 'The object\'s fields on notification rows (tables), kubectl\'s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource\'s default columns' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; replaces the demo\'s fast and slow)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l diff -d 'Print field-level diffs of update notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l show-secret-data -d 'Show Secret data and stringData values (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand demo" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s o -l output -d 'The record file to write (FILE.zst: zstd-compressed)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l timeout -l duration -d 'Stop after this long (default, or 0: until Ctrl-C)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l kubeconfig -d 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l context -d 'The name of the kubeconfig context to use' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s n -l namespace -d 'The namespace scope (default: the context\'s namespace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s l -l selector -d 'Label selector, e.g. app=web,tier!=db or \'env in (prod,staging)\'' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l field-selector -d 'Field selector (e.g. --field-selector spec.nodeName=node-a)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s s -l server -d 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster\'s; without a scheme, https://)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l token -d 'Bearer token for authentication to the API server (replaces the kubeconfig user\'s credentials)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l as -d 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l as-group -d 'Group to impersonate for the operation (repeatable; needs --as)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l request-timeout -d 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l retry-timeout -d 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l content-type -d 'The wire format to ask the server for: json, or protobuf as client-go\'s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)' -r -f -a "json\t'application/json'
protobuf\t'application/vnd.kubernetes.protobuf, application/json'"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l show-secret-data -d 'Write Secret data and stringData values to the file (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s A -l all-namespaces -d 'Watch across all namespaces (the namespace flag and context are then ignored)'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l embedded -d 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l insecure-skip-tls-verify -d 'Do not verify the server\'s certificate (insecure: anyone on the way can read and change the traffic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l retry-connect -d 'When the first connection is refused or the host is unknown, retry with client-go\'s backoff for --retry-timeout instead of failing at once (as kubectl does)'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand record" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l speed -d 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l clock -d 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)' -r -f -a "wall\t'Timestamps are the time of the replay'
virtual\t'tokio\'s paused clock: timestamps are the recording\'s, timers fire in virtual time'"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l stream -d 'Replay only this stream of a kinformer proxy recording (a client\'s informer, as the header\'s resources name it: CLIENT/RESOURCE…)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l timeout -l duration -d 'Stop after this long (of the replay\'s clock; 0 = at the end of the recording)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l report -d 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -s o -l output -d 'Output format; also kubectl\'s custom-columns=SPEC (the table with those columns, as --columns SPEC)' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l show -d 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)' -r -f -a "reflector\t''
lifecycle\t''
deltas\t''
fifo\t''
indexer\t''
notifications\t''
handled\t''
handlers\t''
handler\t''
resync\t''
all\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l kinds -d 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l columns -d 'The object\'s fields on notification rows (tables), kubectl\'s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource\'s default columns' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l top -d 'Draw the replay as kinformer top does (a terminal; q quits) instead of streaming it'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l diff -d 'Print field-level diffs of update notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l show-secret-data -d 'Show Secret data and stringData values (redacted by default)'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand replay" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l listen -d 'Address to listen on (port 0 picks a free port)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l kubeconfig-out -d 'Write a kubeconfig for the server to PATH' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l token -d 'Bearer token clients must send (default: a random one)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l seed -d 'Objects to start with: `builtin` or a YAML file (repeatable)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l history -d 'How many events the watch history keeps (older resourceVersions get 410 Gone)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l churn -d 'Writes per second to generate (0 = none)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l scenario -d 'Play a scenario\'s writes and faults (handler steps are skipped with a warning): a file, or a built-in one by NAME (kinformer scenarios lists them)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l watch-cache -d 'Serve LISTs at resourceVersion 0 from the watch cache, in one page ignoring limit' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l bookmark-interval -d 'Interval between BOOKMARK events on watches that ask for them' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l no-auth -d 'Accept requests without a token'
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l insecure-http -d 'Serve plain HTTP instead of HTTPS (the kubeconfig then carries the token in the URL)'
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -l controllers -d 'Run minimal controllers: Deployment → ReplicaSet → Pods, rollouts, pods become Running'
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand serve" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l listen -d 'Address clients connect to (port 0 picks a free port)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l kubeconfig-out -d 'Write the clients\' kubeconfig to PATH (default: a temporary file, removed at exit)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l token -d 'Bearer token clients must send (default: a random one)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l record -d 'Record every client-side informer stream to FILE (zstd-compressed when it ends in .zst)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l report -d 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l timeout -d 'Stop after this long (e.g. 30s, 5m)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l kubeconfig -d 'The upstream\'s kubeconfig (default: $KUBECONFIG or ~/.kube/config)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l context -d 'The upstream\'s kubeconfig context' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l churn -d 'Pod writes per second on the --embedded server (0 = a static cluster)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -s o -l output -d 'Output format' -r -f -a "table\t''
wide\t''
jsonl\t''
json\t''
yaml\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l show -d 'What to show, comma-separated: lifecycle (each informer\'s lists, watches, errors, relists, backoffs), reflector (lifecycle and every watch event and bookmark), requests (every other request, one line each), all' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l embedded -d 'Relay to an embedded API server (the builtin cluster) instead of a kubeconfig\'s'
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -l no-headers -d 'Don\'t print table headers'
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand proxy" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -s o -l output -d 'The HTML file to write (default: stdout)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l speed -d 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l stream -d 'Replay only this stream of a kinformer proxy recording (a client\'s informer, as the header\'s resources name it: CLIENT/RESOURCE…)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l clock -d 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)' -r -f -a "wall\t'Timestamps are the time of the replay'
virtual\t'tokio\'s paused clock: timestamps are the recording\'s, timers fire in virtual time'"
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand report" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -s o -l output -d 'Output format: text (one line per step) or jsonl (one object per step)' -r -f -a "text\t'One line per step, for people'
jsonl\t'One JSON object per step'"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l speed -d 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l stream -d 'Replay only this stream of a kinformer proxy recording (a client\'s informer, as the header\'s resources name it: CLIENT/RESOURCE…)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l handler -d 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l resync -d 'The informer\'s default resync period (0 = never)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l index -d 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l client-go -d 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy' -r -f -a "1.32\t''
1.33\t''
1.34\t''
1.35\t''
1.36\t''
1.37\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l queue -d 'The queue between reflector and indexer (default: the --client-go release\'s)' -r -f -a "delta-fifo\t'client-go ≤ 1.32 DeltaFIFO (per-key delta lists)'
real-fifo\t'client-go ≥ 1.33 RealFIFO (one entry per event, in order)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l page-size -d 'LIST page size (limit) for every LIST, as client-go\'s WatchListPageSize. 0 sends no limit at all, a what-if: client-go\'s 0 means its pager\'s defaults, it has no unpaged setting. Default: client-go\'s pager (limit=500; none on a relist at a resourceVersion)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l watch-list -d 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release\'s)' -r -f -a "true\t''
false\t''"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l max-backoff -d 'Cap on the reflector\'s retry backoff, jitter included (client-go: 800ms doubling to 30s)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l on-panic -d 'What a panicking handler does: crash (client-go\'s default) or skip the notification' -r -f -a "crash\t'client-go\'s default (ReallyCrash): print the panic and the summary, exit 6'
skip\t'Skip the notification and pause that handler 1s (client-go with crashing off)'"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l transform -d 'Transform objects before they are queued' -r -f -a "strip-managed-fields\t'Drop metadata.managedFields before caching'"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l name -d 'The informer\'s name, as client-go 1.36\'s informer identity (cache.NewInformerName, the factory\'s WithInformerName) names it: on the `informer started` line' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l clock -d 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)' -r -f -a "wall\t'Timestamps are the time of the replay'
virtual\t'tokio\'s paused clock: timestamps are the recording\'s, timers fire in virtual time'"
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -l metadata-only -d 'Watch only metadata (PartialObjectMetadata)'
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c kinformer -n "__fish_kinformer_using_subcommand explain" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand profiles" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand profiles" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand profiles" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand scenarios" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand scenarios" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand scenarios" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand completions" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand completions" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand completions" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand man" -l out-dir -d 'Write kinformer.1 and one page per subcommand into DIR (default: print kinformer.1)' -r -F
complete -c kinformer -n "__fish_kinformer_using_subcommand man" -s v -l v -d 'Log verbosity on stderr, like kubectl\'s -v (0 warnings, 2 info, 4 debug, 6+ trace)' -r
complete -c kinformer -n "__fish_kinformer_using_subcommand man" -s h -l help -d 'Print help'
complete -c kinformer -n "__fish_kinformer_using_subcommand man" -s V -l version -d 'Print version'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "watch" -d 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "dump" -d 'List RESOURCE through an informer and print the cache and its indices'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "resync" -d 'Debug resync: show each handler\'s schedule, every resync tick and a timeline'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "top" -d 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "demo" -d 'Run against an embedded API server with generated churn (no cluster needed)'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "record" -d 'Record RESOURCE\'s raw LIST pages and WATCH frames, with their timing, to a file'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "replay" -d 'Feed a record file through the informer pipeline offline (deterministic)'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "serve" -d 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "proxy" -d 'Relay any client to the API server and show what its informers did (records them too)'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "report" -d 'Draw a run as one self-contained HTML page: timeline, plots, markers, object stories'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "explain" -d 'Tell one object\'s story in a run: server states, deltas, cache writes, notifications'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "profiles" -d 'Print what each client-go release profile (--client-go) switches'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "scenarios" -d 'List the built-in scenarios (demo --scenario NAME plays one) and what each shows'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "completions" -d 'Print a shell completion script to stdout'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "man" -d 'Print the man page, or write every page into a directory'
complete -c kinformer -n "__fish_kinformer_using_subcommand help; and not __fish_seen_subcommand_from watch dump resync top demo record replay serve proxy report explain profiles scenarios completions man help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
