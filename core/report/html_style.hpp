#pragma once
// The stylesheet of the HTML report, inlined into every page: screen and print.

#include <string_view>

namespace culprit::report {

inline constexpr std::string_view k_html_style = R"css(
:root{--fg:#1d2125;--muted:#5f6b76;--line:#d8dee4;--panel:#f5f7f9;--slower:#c62828;
--faster:#2e7d32;--same:#607d8b;--inconclusive:#b26a00;--good:#1f6fb2;--bad:#c62828;
--skip:#9aa5b1;--intermediate:#7b3fa0;--s2:#2e7d32;--s3:#b26a00;--s4:#7b3fa0;--s5:#00838f}
*{box-sizing:border-box}
body{margin:0;color:var(--fg);background:#fff;
font:15px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif}
.wrap{max-width:1100px;margin:0 auto;padding:0 24px}
header{padding:18px 0 14px;border-bottom:1px solid var(--line);border-top:6px solid var(--same)}
header.alarm{border-top-color:var(--slower)}header.ok{border-top-color:var(--faster)}
header.warn{border-top-color:var(--inconclusive)}
header .kind{margin:0;color:var(--muted);font-size:.85rem;text-transform:uppercase;letter-spacing:.05em}
h1{font-size:1.3rem;line-height:1.35;margin:.2rem 0 0;overflow-wrap:anywhere}
h2{font-size:1.1rem;margin:2rem 0 .6rem;padding-bottom:.25rem;border-bottom:1px solid var(--line)}
h3{font-size:1rem;margin:0 0 .5rem;overflow-wrap:anywhere}
table{border-collapse:collapse;width:100%;font-size:.88rem;margin:.4rem 0}
th,td{text-align:left;padding:.28rem .55rem;border-bottom:1px solid var(--line);vertical-align:top}
th{color:var(--muted);font-weight:600}
.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
td{overflow-wrap:break-word}
code,pre{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace;font-size:.86em}
pre{background:var(--panel);padding:.7rem 1rem;border-radius:6px;white-space:pre-wrap;overflow-wrap:anywhere}
.v-slower,.v-bad{color:var(--slower);font-weight:600}.v-faster,.v-good{color:var(--faster);font-weight:600}
.v-inconclusive,.v-skip,.v-intermediate{color:var(--inconclusive)}
[class^=v-]{white-space:nowrap}
.muted,figcaption{color:var(--muted)}figcaption{font-size:.85rem;margin-top:.2rem}
figure{margin:1rem 0 1.4rem}
.culprit{border:1px solid var(--line);border-left:4px solid var(--slower);border-radius:6px;padding:.8rem 1.1rem;margin:1rem 0}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.3rem 0}
dl.facts dt{color:var(--muted)}dl.facts dd{margin:0;overflow-wrap:anywhere}
ul.plain{margin:.2rem 0;padding-left:1.2rem}
.warning{background:#fff8e1;border-left:4px solid var(--inconclusive);padding:.4rem .8rem;margin:.4rem 0}
details{margin:1.2rem 0}summary{cursor:pointer;font-weight:600}
footer{margin:2.5rem 0 1.5rem;color:var(--muted);font-size:.8rem}
svg.plot{display:block;width:100%;height:auto;max-width:1000px}
svg text{font:11px system-ui,-apple-system,"Segoe UI",Roboto,Arial,sans-serif;fill:var(--fg)}
svg .tick,svg .axis-title{fill:var(--muted)}svg .annotation{fill:var(--slower);font-weight:600}
svg .grid{stroke:#e9edf1}svg .axis{stroke:#8a96a3}
svg .band{fill:#e4e9ee}svg .ref{stroke:#59636e;stroke-dasharray:4 3}
svg .ref.good{stroke:var(--good)}svg .ref.bad{stroke:var(--bad)}
svg .culprit-band{fill:#fdecea}
svg .ci{stroke-width:2}svg .median{stroke-width:2.5}
svg .pt{fill-opacity:.75}
svg .good{fill:var(--good);stroke:var(--good)}svg .bad{fill:var(--bad);stroke:var(--bad)}
svg .skip,svg .unresolved,svg .other{fill:var(--skip);stroke:var(--skip)}
svg .intermediate{fill:var(--intermediate);stroke:var(--intermediate)}
svg .slower{fill:var(--slower);stroke:var(--slower)}svg .faster{fill:var(--faster);stroke:var(--faster)}
svg .same{fill:var(--same);stroke:var(--same)}svg .inconclusive{fill:var(--inconclusive);stroke:var(--inconclusive)}
svg text.xlabel,svg text.value,svg text.missing{stroke:none}
svg .missing{font-size:14px}
svg .s0{fill:var(--good);stroke:var(--good)}svg .s1{fill:var(--bad);stroke:var(--bad)}
svg .s2{fill:var(--s2);stroke:var(--s2)}svg .s3{fill:var(--s3);stroke:var(--s3)}
svg .s4{fill:var(--s4);stroke:var(--s4)}svg .s5{fill:var(--s5);stroke:var(--s5)}
svg .sample{fill-opacity:.55;stroke:none}svg .trend{fill:none;stroke-width:1.6}
svg text.legend{stroke:none}
svg .roof{fill:none;stroke:#59636e;stroke-width:2}svg .arrow{fill:none;stroke-width:1.6}
svg .pt.head{stroke:var(--fg);stroke-width:1.2}
@media print{
body{font-size:10pt}.wrap{max-width:none;padding:0}
header{border-top-width:3px}
h2{break-after:avoid}figure,.culprit,tr,pre{break-inside:avoid}
details>summary{list-style:none}
a{color:inherit;text-decoration:none}
}
)css";

} // namespace culprit::report
