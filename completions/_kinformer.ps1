
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'kinformer' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'kinformer'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'kinformer' {
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'List RESOURCE through an informer and print the cache and its indices')
            [CompletionResult]::new('resync', 'resync', [CompletionResultType]::ParameterValue, 'Debug resync: show each handler''s schedule, every resync tick and a timeline')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Run against an embedded API server with generated churn (no cluster needed)')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Record RESOURCE''s raw LIST pages and WATCH frames, with their timing, to a file')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Feed a record file through the informer pipeline offline (deterministic)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)')
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Relay any client to the API server and show what its informers did (records them too)')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Draw a run as one self-contained HTML page: timeline, plots, markers, object stories')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Tell one object''s story in a run: server states, deltas, cache writes, notifications')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'Print what each client-go release profile (--client-go) switches')
            [CompletionResult]::new('scenarios', 'scenarios', [CompletionResultType]::ParameterValue, 'List the built-in scenarios (demo --scenario NAME plays one) and what each shows')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page, or write every page into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kinformer;watch' {
            [CompletionResult]::new('--count', '--count', [CompletionResultType]::ParameterName, 'Stop after N notifications (handler notify events, shown or not), N ≥ 1; the informer stopped line and the exit summary follow')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this long (e.g. 30s, 5m; 0 = no limit, as kubectl)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Stop after this long (e.g. 30s, 5m; 0 = no limit, as kubectl)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector (e.g. --field-selector spec.nodeName=node-a)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (replaces the kubeconfig user''s credentials)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened')
            [CompletionResult]::new('--retry-timeout', '--retry-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The wire format to ask the server for: json, or protobuf as client-go''s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The object''s fields on notification rows (tables), kubectl''s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource''s default columns')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--until-synced', '--until-synced', [CompletionResultType]::ParameterName, 'Stop once the informer has synced (the initial list was delivered)')
            [CompletionResult]::new('-w', '-w', [CompletionResultType]::ParameterName, 'Accepted for kubectl''s `get -w` habit; watch always watches')
            [CompletionResult]::new('--watch', '--watch', [CompletionResultType]::ParameterName, 'Accepted for kubectl''s `get -w` habit; watch always watches')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the server''s certificate (insecure: anyone on the way can read and change the traffic)')
            [CompletionResult]::new('--retry-connect', '--retry-connect', [CompletionResultType]::ParameterName, 'When the first connection is refused or the host is unknown, retry with client-go''s backoff for --retry-timeout instead of failing at once (as kubectl does)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print field-level diffs of update notifications')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Show Secret data and stringData values (redacted by default)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;dump' {
            [CompletionResult]::new('--by-index', '--by-index', [CompletionResultType]::ParameterName, 'Print only the objects under one value of one index (client-go''s ByIndex): `namespace` or an --index''s NAME')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector (e.g. --field-selector spec.nodeName=node-a)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (replaces the kubeconfig user''s credentials)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened')
            [CompletionResult]::new('--retry-timeout', '--retry-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The wire format to ask the server for: json, or protobuf as client-go''s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The object''s fields on notification rows (tables), kubectl''s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource''s default columns')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the server''s certificate (insecure: anyone on the way can read and change the traffic)')
            [CompletionResult]::new('--retry-connect', '--retry-connect', [CompletionResultType]::ParameterName, 'When the first connection is refused or the host is unknown, retry with client-go''s backoff for --retry-timeout instead of failing at once (as kubectl does)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print field-level diffs of update notifications')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Show Secret data and stringData values (redacted by default)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;resync' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'How long to run before printing the timeline (0 = until Ctrl-C)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'How long to run before printing the timeline (0 = until Ctrl-C)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector (e.g. --field-selector spec.nodeName=node-a)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (replaces the kubeconfig user''s credentials)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened')
            [CompletionResult]::new('--retry-timeout', '--retry-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The wire format to ask the server for: json, or protobuf as client-go''s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The object''s fields on notification rows (tables), kubectl''s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource''s default columns')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the server''s certificate (insecure: anyone on the way can read and change the traffic)')
            [CompletionResult]::new('--retry-connect', '--retry-connect', [CompletionResultType]::ParameterName, 'When the first connection is refused or the host is unknown, retry with client-go''s backoff for --retry-timeout instead of failing at once (as kubectl does)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print field-level diffs of update notifications')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Show Secret data and stringData values (redacted by default)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;top' {
            [CompletionResult]::new('--scenario', '--scenario', [CompletionResultType]::ParameterName, 'Play a scenario on the --embedded server (its writes, faults and handler steps): a file, or a built-in one by NAME (kinformer scenarios lists them)')
            [CompletionResult]::new('--attach', '--attach', [CompletionResultType]::ParameterName, 'Draw a running Go controller''s own informers instead, from its Go tap''s endpoint (http://HOST:PORT/trace; docs/debug-go-controller.md): no resource, no informer of ours')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector (e.g. --field-selector spec.nodeName=node-a)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (replaces the kubeconfig user''s credentials)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened')
            [CompletionResult]::new('--retry-timeout', '--retry-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The wire format to ask the server for: json, or protobuf as client-go''s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the server''s certificate (insecure: anyone on the way can read and change the traffic)')
            [CompletionResult]::new('--retry-connect', '--retry-connect', [CompletionResultType]::ParameterName, 'When the first connection is refused or the host is unknown, retry with client-go''s backoff for --retry-timeout instead of failing at once (as kubectl does)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;demo' {
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this long (default, or 0: run until interrupted)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Stop after this long (default, or 0: run until interrupted)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Writes per second the embedded server makes (creates, updates, deletes)')
            [CompletionResult]::new('--scenario', '--scenario', [CompletionResultType]::ParameterName, 'Play a scenario (timed writes, faults, handler changes) instead of churning: a file, or a built-in one by NAME: broken-stream-vs-410, delete-during-disconnect, delta-vs-real-fifo, late-handler, relist-after-410, slow-handler-backlog, three-handlers-resync, throttled-server, version-differences (kinformer scenarios says what each shows)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Also record the informer''s LIST pages and WATCH frames to FILE (see kinformer record)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The object''s fields on notification rows (tables), kubectl''s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource''s default columns')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; replaces the demo''s fast and slow)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print field-level diffs of update notifications')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Show Secret data and stringData values (redacted by default)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;record' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The record file to write (FILE.zst: zstd-compressed)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The record file to write (FILE.zst: zstd-compressed)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this long (default, or 0: until Ctrl-C)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Stop after this long (default, or 0: until Ctrl-C)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'Path to the kubeconfig file to use (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The name of the kubeconfig context to use')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The namespace scope (default: the context''s namespace)')
            [CompletionResult]::new('-l', '-l', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--selector', '--selector', [CompletionResultType]::ParameterName, 'Label selector, e.g. app=web,tier!=db or ''env in (prod,staging)''')
            [CompletionResult]::new('--field-selector', '--field-selector', [CompletionResultType]::ParameterName, 'Field selector (e.g. --field-selector spec.nodeName=node-a)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'The address and port of the Kubernetes API server (replaces the kubeconfig cluster''s; without a scheme, https://)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token for authentication to the API server (replaces the kubeconfig user''s credentials)')
            [CompletionResult]::new('--as', '--as', [CompletionResultType]::ParameterName, 'Username to impersonate for the operation: a user or a service account (system:serviceaccount:NS:NAME)')
            [CompletionResult]::new('--as-group', '--as-group', [CompletionResultType]::ParameterName, 'Group to impersonate for the operation (repeatable; needs --as)')
            [CompletionResult]::new('--request-timeout', '--request-timeout', [CompletionResultType]::ParameterName, 'How long to wait for a single server request before giving up (0: no limit), e.g. 1s, 2m; a watch quiet that long is reopened')
            [CompletionResult]::new('--retry-timeout', '--retry-timeout', [CompletionResultType]::ParameterName, 'How long to keep retrying an unreachable server (--retry-connect) or one answering 429/5xx (with backoff) before giving up (exit 5)')
            [CompletionResult]::new('--content-type', '--content-type', [CompletionResultType]::ParameterName, 'The wire format to ask the server for: json, or protobuf as client-go''s typed clients (built-in kinds only; custom resources and servers that answer JSON are read as JSON)')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Write Secret data and stringData values to the file (redacted by default)')
            [CompletionResult]::new('-A', '-A ', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--all-namespaces', '--all-namespaces', [CompletionResultType]::ParameterName, 'Watch across all namespaces (the namespace flag and context are then ignored)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Start an embedded API server (the builtin cluster, with --churn) and use it instead of a cluster')
            [CompletionResult]::new('--insecure-skip-tls-verify', '--insecure-skip-tls-verify', [CompletionResultType]::ParameterName, 'Do not verify the server''s certificate (insecure: anyone on the way can read and change the traffic)')
            [CompletionResult]::new('--retry-connect', '--retry-connect', [CompletionResultType]::ParameterName, 'When the first connection is refused or the host is unknown, retry with client-go''s backoff for --retry-timeout instead of failing at once (as kubectl does)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;replay' {
            [CompletionResult]::new('--speed', '--speed', [CompletionResultType]::ParameterName, 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)')
            [CompletionResult]::new('--clock', '--clock', [CompletionResultType]::ParameterName, 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)')
            [CompletionResult]::new('--stream', '--stream', [CompletionResultType]::ParameterName, 'Replay only this stream of a kinformer proxy recording (a client''s informer, as the header''s resources name it: CLIENT/RESOURCE…)')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this long (of the replay''s clock; 0 = at the end of the recording)')
            [CompletionResult]::new('--duration', '--duration', [CompletionResultType]::ParameterName, 'Stop after this long (of the replay''s clock; 0 = at the end of the recording)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format; also kubectl''s custom-columns=SPEC (the table with those columns, as --columns SPEC)')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: reflector (every reflector event), lifecycle (its list/watch starts, ends, errors, backoffs and relists), deltas, indexer, notifications, handled, handlers (notifications and handled), resync, all. Left at its default, a table folds a burst of notifications into one row (`demo -o jsonl` defaults to all)')
            [CompletionResult]::new('--kinds', '--kinds', [CompletionResultType]::ParameterName, 'Show only these notifications (table and JSONL), comma-separated: add, update, delete, sync (an update with equal resourceVersions: a resync or a relist)')
            [CompletionResult]::new('--columns', '--columns', [CompletionResultType]::ParameterName, 'The object''s fields on notification rows (tables), kubectl''s custom-columns syntax: NAME:JSONPATH[,NAME:JSONPATH…] (e.g. PHASE:.status.phase); replaces the resource''s default columns')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--top', '--top', [CompletionResultType]::ParameterName, 'Draw the replay as kinformer top does (a terminal; q quits) instead of streaming it')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Print field-level diffs of update notifications')
            [CompletionResult]::new('--show-secret-data', '--show-secret-data', [CompletionResultType]::ParameterName, 'Show Secret data and stringData values (redacted by default)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;serve' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address to listen on (port 0 picks a free port)')
            [CompletionResult]::new('--kubeconfig-out', '--kubeconfig-out', [CompletionResultType]::ParameterName, 'Write a kubeconfig for the server to PATH')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token clients must send (default: a random one)')
            [CompletionResult]::new('--seed', '--seed', [CompletionResultType]::ParameterName, 'Objects to start with: `builtin` or a YAML file (repeatable)')
            [CompletionResult]::new('--history', '--history', [CompletionResultType]::ParameterName, 'How many events the watch history keeps (older resourceVersions get 410 Gone)')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Writes per second to generate (0 = none)')
            [CompletionResult]::new('--scenario', '--scenario', [CompletionResultType]::ParameterName, 'Play a scenario''s writes and faults (handler steps are skipped with a warning): a file, or a built-in one by NAME (kinformer scenarios lists them)')
            [CompletionResult]::new('--watch-cache', '--watch-cache', [CompletionResultType]::ParameterName, 'Serve LISTs at resourceVersion 0 from the watch cache, in one page ignoring limit')
            [CompletionResult]::new('--bookmark-interval', '--bookmark-interval', [CompletionResultType]::ParameterName, 'Interval between BOOKMARK events on watches that ask for them')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--no-auth', '--no-auth', [CompletionResultType]::ParameterName, 'Accept requests without a token')
            [CompletionResult]::new('--insecure-http', '--insecure-http', [CompletionResultType]::ParameterName, 'Serve plain HTTP instead of HTTPS (the kubeconfig then carries the token in the URL)')
            [CompletionResult]::new('--controllers', '--controllers', [CompletionResultType]::ParameterName, 'Run minimal controllers: Deployment → ReplicaSet → Pods, rollouts, pods become Running')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;proxy' {
            [CompletionResult]::new('--listen', '--listen', [CompletionResultType]::ParameterName, 'Address clients connect to (port 0 picks a free port)')
            [CompletionResult]::new('--kubeconfig-out', '--kubeconfig-out', [CompletionResultType]::ParameterName, 'Write the clients'' kubeconfig to PATH (default: a temporary file, removed at exit)')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'Bearer token clients must send (default: a random one)')
            [CompletionResult]::new('--record', '--record', [CompletionResultType]::ParameterName, 'Record every client-side informer stream to FILE (zstd-compressed when it ends in .zst)')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write the run as a self-contained HTML page to FILE at exit (see kinformer report); the informer then traces every stage, --show still narrows what is printed')
            [CompletionResult]::new('--timeout', '--timeout', [CompletionResultType]::ParameterName, 'Stop after this long (e.g. 30s, 5m)')
            [CompletionResult]::new('--kubeconfig', '--kubeconfig', [CompletionResultType]::ParameterName, 'The upstream''s kubeconfig (default: $KUBECONFIG or ~/.kube/config)')
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The upstream''s kubeconfig context')
            [CompletionResult]::new('--churn', '--churn', [CompletionResultType]::ParameterName, 'Pod writes per second on the --embedded server (0 = a static cluster)')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format')
            [CompletionResult]::new('--show', '--show', [CompletionResultType]::ParameterName, 'What to show, comma-separated: lifecycle (each informer''s lists, watches, errors, relists, backoffs), reflector (lifecycle and every watch event and bookmark), requests (every other request, one line each), all')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--embedded', '--embedded', [CompletionResultType]::ParameterName, 'Relay to an embedded API server (the builtin cluster) instead of a kubeconfig''s')
            [CompletionResult]::new('--no-headers', '--no-headers', [CompletionResultType]::ParameterName, 'Don''t print table headers')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;report' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'The HTML file to write (default: stdout)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'The HTML file to write (default: stdout)')
            [CompletionResult]::new('--speed', '--speed', [CompletionResultType]::ParameterName, 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)')
            [CompletionResult]::new('--stream', '--stream', [CompletionResultType]::ParameterName, 'Replay only this stream of a kinformer proxy recording (a client''s informer, as the header''s resources name it: CLIENT/RESOURCE…)')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('--clock', '--clock', [CompletionResultType]::ParameterName, 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;explain' {
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Output format: text (one line per step) or jsonl (one object per step)')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output format: text (one line per step) or jsonl (one object per step)')
            [CompletionResult]::new('--speed', '--speed', [CompletionResultType]::ParameterName, 'How fast recorded time passes: 1x (as recorded), 10x, 0.5x, … or max (no waiting)')
            [CompletionResult]::new('--stream', '--stream', [CompletionResultType]::ParameterName, 'Replay only this stream of a kinformer proxy recording (a client''s informer, as the header''s resources name it: CLIENT/RESOURCE…)')
            [CompletionResult]::new('--handler', '--handler', [CompletionResultType]::ParameterName, 'Add an event handler: NAME[:resync=DUR][:delay=DUR][:panic-every=N] (repeatable; default one `default`)')
            [CompletionResult]::new('--resync', '--resync', [CompletionResultType]::ParameterName, 'The informer''s default resync period (0 = never)')
            [CompletionResult]::new('--index', '--index', [CompletionResultType]::ParameterName, 'Add an index: NAME=EXPR, EXPR one of label:KEY, annotation:KEY, field:PATH, owner (the controller owner as namespace/Kind/name)')
            [CompletionResult]::new('--client-go', '--client-go', [CompletionResultType]::ParameterName, 'The client-go release to model: its queue, PopBatch, atomic FIFO and list strategy')
            [CompletionResult]::new('--queue', '--queue', [CompletionResultType]::ParameterName, 'The queue between reflector and indexer (default: the --client-go release''s)')
            [CompletionResult]::new('--page-size', '--page-size', [CompletionResultType]::ParameterName, 'LIST page size (limit) for every LIST, as client-go''s WatchListPageSize. 0 sends no limit at all, a what-if: client-go''s 0 means its pager''s defaults, it has no unpaged setting. Default: client-go''s pager (limit=500; none on a relist at a resourceVersion)')
            [CompletionResult]::new('--watch-list', '--watch-list', [CompletionResultType]::ParameterName, 'Stream the initial list (sendInitialEvents) instead of LIST; --watch-list=false to LIST (default: the --client-go release''s)')
            [CompletionResult]::new('--max-backoff', '--max-backoff', [CompletionResultType]::ParameterName, 'Cap on the reflector''s retry backoff, jitter included (client-go: 800ms doubling to 30s)')
            [CompletionResult]::new('--on-panic', '--on-panic', [CompletionResultType]::ParameterName, 'What a panicking handler does: crash (client-go''s default) or skip the notification')
            [CompletionResult]::new('--transform', '--transform', [CompletionResultType]::ParameterName, 'Transform objects before they are queued')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The informer''s name, as client-go 1.36''s informer identity (cache.NewInformerName, the factory''s WithInformerName) names it: on the `informer started` line')
            [CompletionResult]::new('--clock', '--clock', [CompletionResultType]::ParameterName, 'Trace timestamps: wall (now), or virtual (recorded time; output identical every run)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--metadata-only', '--metadata-only', [CompletionResultType]::ParameterName, 'Watch only metadata (PartialObjectMetadata)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;profiles' {
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;scenarios' {
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;completions' {
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;man' {
            [CompletionResult]::new('--out-dir', '--out-dir', [CompletionResultType]::ParameterName, 'Write kinformer.1 and one page per subcommand into DIR (default: print kinformer.1)')
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('--v', '--v', [CompletionResultType]::ParameterName, 'Log verbosity on stderr, like kubectl''s -v (0 warnings, 2 info, 4 debug, 6+ trace)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            break
        }
        'kinformer;help' {
            [CompletionResult]::new('watch', 'watch', [CompletionResultType]::ParameterValue, 'Run an informer on RESOURCE and show its pipeline live (like kubectl get -w)')
            [CompletionResult]::new('dump', 'dump', [CompletionResultType]::ParameterValue, 'List RESOURCE through an informer and print the cache and its indices')
            [CompletionResult]::new('resync', 'resync', [CompletionResultType]::ParameterValue, 'Debug resync: show each handler''s schedule, every resync tick and a timeline')
            [CompletionResult]::new('top', 'top', [CompletionResultType]::ParameterValue, 'A live pipeline view on the terminal: reflector, queue, indexer, one lane per handler')
            [CompletionResult]::new('demo', 'demo', [CompletionResultType]::ParameterValue, 'Run against an embedded API server with generated churn (no cluster needed)')
            [CompletionResult]::new('record', 'record', [CompletionResultType]::ParameterValue, 'Record RESOURCE''s raw LIST pages and WATCH frames, with their timing, to a file')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Feed a record file through the informer pipeline offline (deterministic)')
            [CompletionResult]::new('serve', 'serve', [CompletionResultType]::ParameterValue, 'Serve the embedded Kubernetes API server (for kubectl, kube-rs and tests)')
            [CompletionResult]::new('proxy', 'proxy', [CompletionResultType]::ParameterValue, 'Relay any client to the API server and show what its informers did (records them too)')
            [CompletionResult]::new('report', 'report', [CompletionResultType]::ParameterValue, 'Draw a run as one self-contained HTML page: timeline, plots, markers, object stories')
            [CompletionResult]::new('explain', 'explain', [CompletionResultType]::ParameterValue, 'Tell one object''s story in a run: server states, deltas, cache writes, notifications')
            [CompletionResult]::new('profiles', 'profiles', [CompletionResultType]::ParameterValue, 'Print what each client-go release profile (--client-go) switches')
            [CompletionResult]::new('scenarios', 'scenarios', [CompletionResultType]::ParameterValue, 'List the built-in scenarios (demo --scenario NAME plays one) and what each shows')
            [CompletionResult]::new('completions', 'completions', [CompletionResultType]::ParameterValue, 'Print a shell completion script to stdout')
            [CompletionResult]::new('man', 'man', [CompletionResultType]::ParameterValue, 'Print the man page, or write every page into a directory')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'kinformer;help;watch' {
            break
        }
        'kinformer;help;dump' {
            break
        }
        'kinformer;help;resync' {
            break
        }
        'kinformer;help;top' {
            break
        }
        'kinformer;help;demo' {
            break
        }
        'kinformer;help;record' {
            break
        }
        'kinformer;help;replay' {
            break
        }
        'kinformer;help;serve' {
            break
        }
        'kinformer;help;proxy' {
            break
        }
        'kinformer;help;report' {
            break
        }
        'kinformer;help;explain' {
            break
        }
        'kinformer;help;profiles' {
            break
        }
        'kinformer;help;scenarios' {
            break
        }
        'kinformer;help;completions' {
            break
        }
        'kinformer;help;man' {
            break
        }
        'kinformer;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
