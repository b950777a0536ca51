/**
 * The export page's one stylesheet: readable on paper-white and on dark
 * screens (prefers-color-scheme), no web fonts, no external anything. The CSP
 * of the page allows exactly this text (by its hash), nothing else.
 */
export const EXPORT_CSS = `
:root{color-scheme:light dark;--bg:#f7f7f5;--panel:#ffffff;--text:#1d2125;--muted:#5f6b76;--border:#dde1e5;
--user:#e8f0fe;--user-border:#b7cdf5;--accent:#2f6fdb;--ok:#1f7a4d;--fail:#b3261e;--warn:#8a5a00;--code:#f1f3f5}
@media (prefers-color-scheme:dark){:root{--bg:#14171a;--panel:#1c2024;--text:#e6e9ec;--muted:#9aa5b1;--border:#2e343a;
--user:#1b2a40;--user-border:#2f4a72;--accent:#7aa7ff;--ok:#5fd39a;--fail:#ff8a80;--warn:#f2c46d;--code:#111417}}
*{box-sizing:border-box}
html{background:var(--bg);color:var(--text)}
body{margin:0 auto;max-width:52rem;padding:2rem 1.25rem 4rem;font:15px/1.55 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.5rem;margin:0 0 .75rem}
.facts{display:grid;grid-template-columns:max-content 1fr;gap:.2rem 1rem;margin:0 0 1.5rem;padding:1rem;background:var(--panel);
border:1px solid var(--border);border-radius:10px;font-size:.9rem}
.facts dt{color:var(--muted)}.facts dd{margin:0;overflow-wrap:anywhere}
.conversation{display:flex;flex-direction:column;gap:.85rem}
.msg{padding:.8rem 1rem;border-radius:10px;border:1px solid var(--border);background:var(--panel)}
.msg.user{background:var(--user);border-color:var(--user-border)}
.role{font-size:.75rem;font-weight:600;letter-spacing:.04em;text-transform:uppercase;color:var(--muted);margin-bottom:.35rem;
display:flex;justify-content:space-between;gap:1rem}
.role time{font-weight:400;text-transform:none;letter-spacing:0}
.text{white-space:pre-wrap;overflow-wrap:anywhere}
.msg img{max-width:100%;border-radius:6px;margin-top:.5rem}
details{border:1px solid var(--border);border-radius:10px;background:var(--panel);padding:.5rem .9rem}
details>summary{cursor:pointer;color:var(--muted);font-size:.9rem}
details[open]>summary{margin-bottom:.5rem}
.thought .text{color:var(--muted);font-style:italic}
.tool summary{color:var(--text)}
.tool-name{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-weight:600}
.tool-title{color:var(--muted)}
.badge{display:inline-block;font-size:.72rem;font-weight:600;padding:.05rem .45rem;border-radius:999px;border:1px solid currentColor;margin-right:.4rem}
.status-completed .badge{color:var(--ok)}.status-failed .badge{color:var(--fail)}.status-no-result .badge{color:var(--warn)}
h4{margin:.6rem 0 .25rem;font-size:.8rem;color:var(--muted);text-transform:uppercase;letter-spacing:.04em}
pre{margin:0;padding:.6rem .75rem;background:var(--code);border:1px solid var(--border);border-radius:8px;overflow:auto;max-height:28rem;
font:13px/1.45 ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;white-space:pre-wrap;overflow-wrap:anywhere}
.note{font-size:.9rem;padding:.45rem .9rem;border-left:3px solid var(--border);color:var(--muted)}
.note strong{color:var(--text)}
.permission.allow{border-left-color:var(--ok)}.permission.reject{border-left-color:var(--fail)}
.turn-error{border-left-color:var(--fail)}.turn-error strong{color:var(--fail)}
.plan ul{margin:.25rem 0 0;padding-left:1.2rem}.plan .done{text-decoration:line-through;color:var(--muted)}
footer{margin-top:2.5rem;font-size:.8rem;color:var(--muted)}
@media print{details{break-inside:avoid}pre{max-height:none}}
`;
