import { runDevtoolsPage } from './page-script.js';
import { createRunStore } from './run-store.js';

/** The page: a shell the script fills in. Everything it loads comes from the same server. */
export const PAGE_HTML = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>org devtools</title>
<link rel="stylesheet" href="app.css">
</head>
<body>
<div id="app"><noscript>The run viewer needs JavaScript.</noscript></div>
<script src="app.js"></script>
</body>
</html>
`;

/** The page's script: the viewer function's own text, called once with the run store's factory. */
export const PAGE_SCRIPT = `"use strict";\n(${runDevtoolsPage.toString()})(${createRunStore.toString()});\n`;

/** The page's style sheet (system fonts only: nothing is fetched from outside the machine). */
export const PAGE_STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --muted: #636c76; --line: #d0d7de; --bg: #ffffff; --panel: #f6f8fa;
  --accent: #0969da; --critical: #cf222e; --ok: #1a7f37; --warn: #9a6700; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6edf3; --muted: #8d96a0; --line: #30363d; --bg: #0d1117;
  --panel: #161b22; --accent: #4493f8; --critical: #f85149; --ok: #3fb950; --warn: #d29922; } }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, -apple-system, "Segoe UI", sans-serif; color: var(--fg); background: var(--bg); }
header { display: flex; align-items: center; gap: 12px; padding: 10px 16px; border-bottom: 1px solid var(--line); }
header h1 { font-size: 16px; margin: 0; }
.connection { font-size: 12px; padding: 2px 8px; border-radius: 10px; background: var(--panel); color: var(--muted); }
.connection.live { color: var(--ok); }
.layout { display: grid; grid-template-columns: 320px 1fr; min-height: calc(100vh - 45px); }
nav { border-right: 1px solid var(--line); padding: 8px; overflow: auto; }
main { padding: 12px 20px; overflow: auto; }
ul.runs { list-style: none; margin: 0; padding: 0; }
.run-item { display: grid; width: 100%; text-align: left; gap: 2px; padding: 8px; margin-bottom: 4px; border: 1px solid var(--line);
  border-radius: 6px; background: var(--panel); color: inherit; font: inherit; cursor: pointer; }
.run-item.selected { border-color: var(--accent); box-shadow: inset 3px 0 0 var(--accent); }
.run-id { font-family: ui-monospace, monospace; font-size: 12px; overflow-wrap: anywhere; }
.meta, .deps, .note { color: var(--muted); font-size: 12px; margin: 2px 0; }
.status { font-size: 12px; font-weight: 600; }
.status-running, .status-waiting-for-approval { color: var(--warn); }
.status-error, .status-aborted { color: var(--critical); }
h2 { font-size: 18px; margin: 4px 0 8px; overflow-wrap: anywhere; }
h3 { font-size: 14px; margin: 0 0 4px; }
h3.section { margin: 18px 0 6px; color: var(--muted); text-transform: uppercase; font-size: 12px; letter-spacing: .04em; }
dl.totals { display: grid; grid-template-columns: max-content 1fr; gap: 2px 12px; margin: 0 0 12px; }
dt { color: var(--muted); }
dd { margin: 0; }
section.model-call, section.tool-call, section.plan, section.approvals, section.notes { border: 1px solid var(--line);
  border-radius: 6px; padding: 8px 10px; margin: 6px 0; background: var(--panel); }
section.approvals { border-color: var(--warn); }
.block { margin-top: 6px; }
.label { font-size: 11px; text-transform: uppercase; color: var(--muted); }
pre { margin: 2px 0; padding: 6px; max-height: 240px; overflow: auto; background: var(--bg); border: 1px solid var(--line);
  border-radius: 4px; font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.error, .error-row { color: var(--critical); }
.critical-path { font-weight: 600; color: var(--critical); }
.plan-step { display: grid; grid-template-columns: 380px 1fr; gap: 2px 10px; align-items: center; margin: 3px 0; }
.plan-step .deps, .plan-step .error { grid-column: 1 / -1; }
.plan-step.critical .step-name { color: var(--critical); font-weight: 600; }
.track { position: relative; height: 14px; background: var(--bg); border: 1px solid var(--line); border-radius: 3px; }
.bar { position: absolute; top: 1px; bottom: 1px; background: var(--accent); border-radius: 2px; }
.bar.critical { background: var(--critical); }
.bar.never-ran { background: transparent; border: 1px dashed var(--muted); }
.messages { margin: 2px 0; padding-left: 22px; font: 12px/1.4 ui-monospace, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.error-rows ul { padding-left: 16px; font-size: 12px; }
`;
