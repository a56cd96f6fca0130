# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_aciproj_global_optspecs
    string join \n h/help V/version
end

function __fish_aciproj_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_aciproj_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_aciproj_using_subcommand
    set -l cmd (__fish_aciproj_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c aciproj -n "__fish_aciproj_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_needs_command" -s V -l version -d 'Print version'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "rag" -d 'Project a RAG knowledge-search response into the RAG contract'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "logs" -d 'Project a Mock log-query response into the logs contract'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "patterns" -d 'Fold raw log lines into redacted patterns (one message per line)'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "redact" -d 'Redact any log stream line by line with the same rule catalogue as the logs timeline'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "rules" -d 'Print the redaction rule catalogue: each rule\'s id, class, placeholder, description, examples and negatives'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "check" -d 'Run fixture cases (*.case.json) in-process and compare each output with its expectation'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "replay" -d 'Re-run a captured incident\'s calls in order through one fresh in-memory ledger'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "schema" -d 'Print the JSON Schema (draft 2020-12) of a contract, or list the contract names'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "ledger" -d 'Audit a ledger file: is its hash chain intact?'
complete -c aciproj -n "__fish_aciproj_needs_command" -f -a "help" -d 'Print the help of aciproj or of one of its subcommands'
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l context -d 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l call-id -d 'The framework\'s tool call id, echoed byte for byte (at most 128 bytes)' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l run-id -d 'The run the caller believes it is in; must equal the context\'s run_id [default: the context\'s run_id]' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l query -d 'The agent\'s query, passed through unchanged' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l capture -d 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l view -d 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]' -r -f -a "envelope\t'The canonical result or safe error, with tool, run and call ids'
model\t'The Model Observation: only what the model needs to understand and cite'
harness\t'The Harness Control View: counts, scope fingerprint, truncation, redactions, budget'"
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l format -d 'How to wrap the view: plain JSON, or an MCP CallToolResult' -r -f -a "json\t'The view as one JSON document'
mcp\t'An MCP CallToolResult: the model observation as structuredContent, the control view under _meta["aciproj/control"] (so `--view` is a usage error with it)'"
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -s o -l output -d 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask\'s mode, an existing one keeps its own); `-` is standard output [default: standard output]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -l pretty -d 'Indent the JSON [default: compact, one line]'
complete -c aciproj -n "__fish_aciproj_using_subcommand rag" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l context -d 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l call-id -d 'The framework\'s tool call id, echoed byte for byte (at most 128 bytes)' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l run-id -d 'The run the caller believes it is in; must equal the context\'s run_id [default: the context\'s run_id]' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l topic -d 'The logical log topic (e.g. application-logs), at most 128 bytes' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l query -d 'The agent\'s query, passed through unchanged' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l lookback-minutes -d 'How far back the window reaches from the run\'s `now`, 1 to 10080 [default: 60]' -r -f
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l capture -d 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l view -d 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]' -r -f -a "envelope\t'The canonical result or safe error, with tool, run and call ids'
model\t'The Model Observation: only what the model needs to understand and cite'
harness\t'The Harness Control View: counts, scope fingerprint, truncation, redactions, budget'"
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l format -d 'How to wrap the view: plain JSON, or an MCP CallToolResult' -r -f -a "json\t'The view as one JSON document'
mcp\t'An MCP CallToolResult: the model observation as structuredContent, the control view under _meta["aciproj/control"] (so `--view` is a usage error with it)'"
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -s o -l output -d 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask\'s mode, an existing one keeps its own); `-` is standard output [default: standard output]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -l pretty -d 'Indent the JSON [default: compact, one line]'
complete -c aciproj -n "__fish_aciproj_using_subcommand logs" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand patterns" -l rules -d 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand patterns" -l assign -d 'Print one line per input line instead: the pattern that line was folded into (as a JSON string), for scoring grouping quality [default: one JSON object per pattern]'
complete -c aciproj -n "__fish_aciproj_using_subcommand patterns" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l rules -d 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l json -d 'Treat each line as JSON: redact its string values, keep keys, numbers, booleans and structure byte for byte (a line that is not JSON is redacted as text) [default: text]'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l correlate -d 'Label identity and credential placeholders with an ordinal per distinct value in the stream, numbered by first appearance (`<IP#1>`, `<IP#2>`, `<IP#1>`); a counter, never derived from the value. With --stats, also the distinct values per class'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l stats -d 'Print one JSON object of counts per class and per rule id on standard error at the end'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l flags -d 'Instead of the redacted text, print per line a JSON array of the flag rules (text addressed to the model, `aciproj rules`) that fire on the redacted line; `[]` for none'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -l raw -d 'With --flags: scan each line as it is, without redacting it first (as `rag` evidence, which is not redacted, is scanned) [default: redacted, as `logs` messages are]'
complete -c aciproj -n "__fish_aciproj_using_subcommand redact" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand rules; and not __fish_seen_subcommand_from check" -l rules -d 'Also list the user rules of this TOML rules file, after the built-in ones (those it turns off are marked `"disabled": true`) [default: the built-in catalogue alone]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand rules; and not __fish_seen_subcommand_from check" -l json -d 'One JSON object per rule and line: redaction rules (`"action": "redact"`: id, class, placeholder, description, keywords, examples, negatives), then flag rules (`"action": "flag"`: id, description, keywords, examples, negatives) [default: a table]'
complete -c aciproj -n "__fish_aciproj_using_subcommand rules; and not __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand rules; and not __fish_seen_subcommand_from check" -f -a "check" -d 'Validate a user rules file: every regex compiles, every example and negative holds through the whole redactor, no rule redacts an allowed value'
complete -c aciproj -n "__fish_aciproj_using_subcommand rules; and __fish_seen_subcommand_from check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand check" -l junit -d 'Also write JUnit XML to FILE, atomically, for CI test reporters: one testcase per case, named by the case\'s name, a failed case\'s diff in its failure element; no times, so the same cases give the same bytes [default: no JUnit file]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand check" -l update -d 'Rewrite each case\'s expect.output with the actual output, keeping its other fields [default: off, only compare]'
complete -c aciproj -n "__fish_aciproj_using_subcommand check" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand replay" -l view -d 'Which view of each call to print, one compact JSON line per call' -r -f -a "envelope\t'The canonical result or safe error, with tool, run and call ids'
model\t'The Model Observation: only what the model needs to understand and cite'
harness\t'The Harness Control View: counts, scope fingerprint, truncation, redactions, budget'"
complete -c aciproj -n "__fish_aciproj_using_subcommand replay" -l verify -d 'Also compare every replayed call with its record in this live ledger file (`-`: standard input) and the ledger\'s hash chain, one line per call on standard error [default: no comparison]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand replay" -l report -d 'Also write an HTML incident report to FILE, atomically: one self-contained page (no script, no external asset) with every call\'s model observation beside its control view, log timelines as charts, and with --verify the verdict. `-` writes it to standard output, which then carries the report instead of the JSON lines [default: no report]' -r -F
complete -c aciproj -n "__fish_aciproj_using_subcommand replay" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand schema" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand ledger; and not __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand ledger; and not __fish_seen_subcommand_from verify" -f -a "verify" -d 'Check that every record links to the one before it, and report the first that does not'
complete -c aciproj -n "__fish_aciproj_using_subcommand ledger; and __fish_seen_subcommand_from verify" -l head -d 'Also require this record hash (a `ledger_head` the harness was handed) to be in the chain, so records cut off the end after it are caught; says how many records follow it [default: no head required]' -r
complete -c aciproj -n "__fish_aciproj_using_subcommand ledger; and __fish_seen_subcommand_from verify" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c aciproj -n "__fish_aciproj_using_subcommand help" -s h -l help -d 'Print help (see more with \'--help\')'
