
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'aciproj' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'aciproj'
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
        'aciproj' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('-V', '-V ', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print version')
            [CompletionResult]::new('rag', 'rag', [CompletionResultType]::ParameterValue, 'Project a RAG knowledge-search response into the RAG contract')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Project a Mock log-query response into the logs contract')
            [CompletionResult]::new('patterns', 'patterns', [CompletionResultType]::ParameterValue, 'Fold raw log lines into redacted patterns (one message per line)')
            [CompletionResult]::new('redact', 'redact', [CompletionResultType]::ParameterValue, 'Redact any log stream line by line with the same rule catalogue as the logs timeline')
            [CompletionResult]::new('rules', 'rules', [CompletionResultType]::ParameterValue, 'Print the redaction rule catalogue: each rule''s id, class, placeholder, description, examples and negatives')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Run fixture cases (*.case.json) in-process and compare each output with its expectation')
            [CompletionResult]::new('replay', 'replay', [CompletionResultType]::ParameterValue, 'Re-run a captured incident''s calls in order through one fresh in-memory ledger')
            [CompletionResult]::new('schema', 'schema', [CompletionResultType]::ParameterValue, 'Print the JSON Schema (draft 2020-12) of a contract, or list the contract names')
            [CompletionResult]::new('ledger', 'ledger', [CompletionResultType]::ParameterValue, 'Audit a ledger file: is its hash chain intact?')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print the help of aciproj or of one of its subcommands')
            break
        }
        'aciproj;rag' {
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)')
            [CompletionResult]::new('--call-id', '--call-id', [CompletionResultType]::ParameterName, 'The framework''s tool call id, echoed byte for byte (at most 128 bytes)')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'The run the caller believes it is in; must equal the context''s run_id [default: the context''s run_id]')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'The agent''s query, passed through unchanged')
            [CompletionResult]::new('--capture', '--capture', [CompletionResultType]::ParameterName, 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]')
            [CompletionResult]::new('--view', '--view', [CompletionResultType]::ParameterName, 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to wrap the view: plain JSON, or an MCP CallToolResult')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Indent the JSON [default: compact, one line]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;logs' {
            [CompletionResult]::new('--context', '--context', [CompletionResultType]::ParameterName, 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)')
            [CompletionResult]::new('--call-id', '--call-id', [CompletionResultType]::ParameterName, 'The framework''s tool call id, echoed byte for byte (at most 128 bytes)')
            [CompletionResult]::new('--run-id', '--run-id', [CompletionResultType]::ParameterName, 'The run the caller believes it is in; must equal the context''s run_id [default: the context''s run_id]')
            [CompletionResult]::new('--topic', '--topic', [CompletionResultType]::ParameterName, 'The logical log topic (e.g. application-logs), at most 128 bytes')
            [CompletionResult]::new('--query', '--query', [CompletionResultType]::ParameterName, 'The agent''s query, passed through unchanged')
            [CompletionResult]::new('--lookback-minutes', '--lookback-minutes', [CompletionResultType]::ParameterName, 'How far back the window reaches from the run''s `now`, 1 to 10080 [default: 60]')
            [CompletionResult]::new('--capture', '--capture', [CompletionResultType]::ParameterName, 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]')
            [CompletionResult]::new('--view', '--view', [CompletionResultType]::ParameterName, 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]')
            [CompletionResult]::new('--format', '--format', [CompletionResultType]::ParameterName, 'How to wrap the view: plain JSON, or an MCP CallToolResult')
            [CompletionResult]::new('-o', '-o', [CompletionResultType]::ParameterName, 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]')
            [CompletionResult]::new('--pretty', '--pretty', [CompletionResultType]::ParameterName, 'Indent the JSON [default: compact, one line]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;patterns' {
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]')
            [CompletionResult]::new('--assign', '--assign', [CompletionResultType]::ParameterName, 'Print one line per input line instead: the pattern that line was folded into (as a JSON string), for scoring grouping quality [default: one JSON object per pattern]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;redact' {
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Treat each line as JSON: redact its string values, keep keys, numbers, booleans and structure byte for byte (a line that is not JSON is redacted as text) [default: text]')
            [CompletionResult]::new('--correlate', '--correlate', [CompletionResultType]::ParameterName, 'Label identity and credential placeholders with an ordinal per distinct value in the stream, numbered by first appearance (`<IP#1>`, `<IP#2>`, `<IP#1>`); a counter, never derived from the value. With --stats, also the distinct values per class')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Print one JSON object of counts per class and per rule id on standard error at the end')
            [CompletionResult]::new('--flags', '--flags', [CompletionResultType]::ParameterName, 'Instead of the redacted text, print per line a JSON array of the flag rules (text addressed to the model, `aciproj rules`) that fire on the redacted line; `[]` for none')
            [CompletionResult]::new('--raw', '--raw', [CompletionResultType]::ParameterName, 'With --flags: scan each line as it is, without redacting it first (as `rag` evidence, which is not redacted, is scanned) [default: redacted, as `logs` messages are]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;rules' {
            [CompletionResult]::new('--rules', '--rules', [CompletionResultType]::ParameterName, 'Also list the user rules of this TOML rules file, after the built-in ones (those it turns off are marked `"disabled": true`) [default: the built-in catalogue alone]')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'One JSON object per rule and line: redaction rules (`"action": "redact"`: id, class, placeholder, description, keywords, examples, negatives), then flag rules (`"action": "flag"`: id, description, keywords, examples, negatives) [default: a table]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('check', 'check', [CompletionResultType]::ParameterValue, 'Validate a user rules file: every regex compiles, every example and negative holds through the whole redactor, no rule redacts an allowed value')
            break
        }
        'aciproj;rules;check' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;check' {
            [CompletionResult]::new('--junit', '--junit', [CompletionResultType]::ParameterName, 'Also write JUnit XML to FILE, atomically, for CI test reporters: one testcase per case, named by the case''s name, a failed case''s diff in its failure element; no times, so the same cases give the same bytes [default: no JUnit file]')
            [CompletionResult]::new('--update', '--update', [CompletionResultType]::ParameterName, 'Rewrite each case''s expect.output with the actual output, keeping its other fields [default: off, only compare]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;replay' {
            [CompletionResult]::new('--view', '--view', [CompletionResultType]::ParameterName, 'Which view of each call to print, one compact JSON line per call')
            [CompletionResult]::new('--verify', '--verify', [CompletionResultType]::ParameterName, 'Also compare every replayed call with its record in this live ledger file (`-`: standard input) and the ledger''s hash chain, one line per call on standard error [default: no comparison]')
            [CompletionResult]::new('--report', '--report', [CompletionResultType]::ParameterName, 'Also write an HTML incident report to FILE, atomically: one self-contained page (no script, no external asset) with every call''s model observation beside its control view, log timelines as charts, and with --verify the verdict. `-` writes it to standard output, which then carries the report instead of the JSON lines [default: no report]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;schema' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;ledger' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('verify', 'verify', [CompletionResultType]::ParameterValue, 'Check that every record links to the one before it, and report the first that does not')
            break
        }
        'aciproj;ledger;verify' {
            [CompletionResult]::new('--head', '--head', [CompletionResultType]::ParameterName, 'Also require this record hash (a `ledger_head` the harness was handed) to be in the chain, so records cut off the end after it are caught; says how many records follow it [default: no head required]')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
        'aciproj;help' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help (see more with ''--help'')')
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
