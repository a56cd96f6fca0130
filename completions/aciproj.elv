
use builtin;
use str;

set edit:completion:arg-completer[aciproj] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'aciproj'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'aciproj'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand -V 'Print version'
            cand --version 'Print version'
            cand rag 'Project a RAG knowledge-search response into the RAG contract'
            cand logs 'Project a Mock log-query response into the logs contract'
            cand patterns 'Fold raw log lines into redacted patterns (one message per line)'
            cand redact 'Redact any log stream line by line with the same rule catalogue as the logs timeline'
            cand rules 'Print the redaction rule catalogue: each rule''s id, class, placeholder, description, examples and negatives'
            cand check 'Run fixture cases (*.case.json) in-process and compare each output with its expectation'
            cand replay 'Re-run a captured incident''s calls in order through one fresh in-memory ledger'
            cand schema 'Print the JSON Schema (draft 2020-12) of a contract, or list the contract names'
            cand ledger 'Audit a ledger file: is its hash chain intact?'
            cand help 'Print the help of aciproj or of one of its subcommands'
        }
        &'aciproj;rag'= {
            cand --context 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)'
            cand --call-id 'The framework''s tool call id, echoed byte for byte (at most 128 bytes)'
            cand --run-id 'The run the caller believes it is in; must equal the context''s run_id [default: the context''s run_id]'
            cand --query 'The agent''s query, passed through unchanged'
            cand --capture 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]'
            cand --view 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]'
            cand --format 'How to wrap the view: plain JSON, or an MCP CallToolResult'
            cand -o 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]'
            cand --output 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]'
            cand --pretty 'Indent the JSON [default: compact, one line]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;logs'= {
            cand --context 'The run context file (JSON): run id, status, authorized tools, clock, budget, bounds; `-` reads it from standard input (RESPONSE must then be a file)'
            cand --call-id 'The framework''s tool call id, echoed byte for byte (at most 128 bytes)'
            cand --run-id 'The run the caller believes it is in; must equal the context''s run_id [default: the context''s run_id]'
            cand --topic 'The logical log topic (e.g. application-logs), at most 128 bytes'
            cand --query 'The agent''s query, passed through unchanged'
            cand --lookback-minutes 'How far back the window reaches from the run''s `now`, 1 to 10080 [default: 60]'
            cand --capture 'Also write the bytes the legacy command returned to FILE (mode 0600, atomically), when it exited 0 within its bounds: a captured response for `replay` and fixture cases [default: not kept]'
            cand --view 'Which view of the call to print; not with `--format mcp`, which carries its own [default: envelope]'
            cand --format 'How to wrap the view: plain JSON, or an MCP CallToolResult'
            cand -o 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]'
            cand --output 'Write the JSON to FILE atomically (temporary file + rename; a new file gets the umask''s mode, an existing one keeps its own); `-` is standard output [default: standard output]'
            cand --pretty 'Indent the JSON [default: compact, one line]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;patterns'= {
            cand --rules 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]'
            cand --assign 'Print one line per input line instead: the pattern that line was folded into (as a JSON string), for scoring grouping quality [default: one JSON object per pattern]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;redact'= {
            cand --rules 'A TOML rules file adding user rules, an allowlist and built-in rules turned off (SPEC §5; `aciproj rules check FILE` validates one) [default: the built-in catalogue alone]'
            cand --json 'Treat each line as JSON: redact its string values, keep keys, numbers, booleans and structure byte for byte (a line that is not JSON is redacted as text) [default: text]'
            cand --correlate 'Label identity and credential placeholders with an ordinal per distinct value in the stream, numbered by first appearance (`<IP#1>`, `<IP#2>`, `<IP#1>`); a counter, never derived from the value. With --stats, also the distinct values per class'
            cand --stats 'Print one JSON object of counts per class and per rule id on standard error at the end'
            cand --flags 'Instead of the redacted text, print per line a JSON array of the flag rules (text addressed to the model, `aciproj rules`) that fire on the redacted line; `[]` for none'
            cand --raw 'With --flags: scan each line as it is, without redacting it first (as `rag` evidence, which is not redacted, is scanned) [default: redacted, as `logs` messages are]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;rules'= {
            cand --rules 'Also list the user rules of this TOML rules file, after the built-in ones (those it turns off are marked `"disabled": true`) [default: the built-in catalogue alone]'
            cand --json 'One JSON object per rule and line: redaction rules (`"action": "redact"`: id, class, placeholder, description, keywords, examples, negatives), then flag rules (`"action": "flag"`: id, description, keywords, examples, negatives) [default: a table]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand check 'Validate a user rules file: every regex compiles, every example and negative holds through the whole redactor, no rule redacts an allowed value'
        }
        &'aciproj;rules;check'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;check'= {
            cand --junit 'Also write JUnit XML to FILE, atomically, for CI test reporters: one testcase per case, named by the case''s name, a failed case''s diff in its failure element; no times, so the same cases give the same bytes [default: no JUnit file]'
            cand --update 'Rewrite each case''s expect.output with the actual output, keeping its other fields [default: off, only compare]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;replay'= {
            cand --view 'Which view of each call to print, one compact JSON line per call'
            cand --verify 'Also compare every replayed call with its record in this live ledger file (`-`: standard input) and the ledger''s hash chain, one line per call on standard error [default: no comparison]'
            cand --report 'Also write an HTML incident report to FILE, atomically: one self-contained page (no script, no external asset) with every call''s model observation beside its control view, log timelines as charts, and with --verify the verdict. `-` writes it to standard output, which then carries the report instead of the JSON lines [default: no report]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;schema'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;ledger'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
            cand verify 'Check that every record links to the one before it, and report the first that does not'
        }
        &'aciproj;ledger;verify'= {
            cand --head 'Also require this record hash (a `ledger_head` the harness was handed) to be in the chain, so records cut off the end after it are caught; says how many records follow it [default: no head required]'
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
        &'aciproj;help'= {
            cand -h 'Print help (see more with ''--help'')'
            cand --help 'Print help (see more with ''--help'')'
        }
    ]
    $completions[$command]
}
