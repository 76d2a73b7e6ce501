// The console's one page: a shell filled by /static/console.js from /api/session, /api/snapshot and
// the /api/events stream. No inline script or style: the Content-Security-Policy allows scripts and
// styles from the console's own origin only, and no connection anywhere else.
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  // lightweight-charts sets element styles from script; no <style> or style attribute in the page.
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

export function consolePageHtml(chartsVersion: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>capibot console</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/console.css">
</head>
<body data-status="loading">
<header>
<h1 id="c-title">capibot</h1>
<span id="c-mode" class="badge"></span>
<span id="c-state" class="badge"></span>
<span id="c-link" class="badge">connecting…</span>
<span id="c-role" class="note"></span>
</header>
<main>
<p id="c-error" hidden></p>
<div id="c-confirm" class="confirm" hidden>
<p id="c-confirm-text"></p>
<label id="c-reason-box" hidden>Reason <input id="c-reason" maxlength="200" value="operator kill from the console"></label>
<button id="c-confirm-yes" class="danger" type="button">Confirm</button>
<button id="c-confirm-no" type="button">Cancel</button>
</div>
<div id="c-controls" class="controls" hidden><button id="c-kill" class="danger" type="button">Kill switch…</button></div>
<div id="c-kpis" class="kpis"></div>
<section><h2 id="c-equity-title">Equity</h2><div id="c-equity" class="chart"></div></section>
<section><h2>Strategies</h2><table id="c-strategies"></table></section>
<div class="cols">
<section><h2>Open orders and resting plans</h2><div class="box"><table id="c-orders"></table></div></section>
<section><h2>Recent fills</h2><div class="box"><table id="c-fills"></table></div></section>
</div>
<div class="cols">
<section><h2>Budget and reconciliation</h2><table id="c-budget"></table></section>
<section><h2>Event log</h2><div class="box"><ol id="c-events"></ol></div></section>
</div>
</main>
<footer>Charts: TradingView Lightweight Charts™ v${chartsVersion.replace(/[^0-9A-Za-z.+-]/g, '')}, Copyright (c) TradingView, Inc., Apache License 2.0. Times are UTC.</footer>
<script src="/static/lightweight-charts.js"></script>
<script src="/static/console.js"></script>
</body>
</html>
`;
}
