#!/usr/bin/env node
// The `spade` command. It runs in this very process (no re-spawn), so signals sent to its PID
// reach it: Ctrl-C stops a run cleanly and `kill -9` leaves nothing running. isolated-vm, which
// needs `--no-node-snapshot` on Node 20, is loaded only in the sandbox processes, which get it.
import "../dist/cli/main.js";
