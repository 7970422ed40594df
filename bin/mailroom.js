#!/usr/bin/env node
// The `mailroom` command: runs the compiled build (npm ci builds it through the `prepare` script).
import '../dist/main.js';
