"""A self-contained HTML timeline of a TimingReport: one row per wave, time in cycles to the
right; each issued instruction is a bar coloured by its pipe, the stall before it a lighter
bar coloured by its cause; hovering names wave, PC, instruction, cycle and cause. No server,
no external scripts: the data is embedded as JSON and drawn on a canvas by a few lines of
JavaScript (mouse wheel zooms, drag pans)."""
from __future__ import annotations

import html
import json

from .engine import CAUSES

PIPE_COLOURS = {"valu": "#2b7bba", "salu": "#e08a1e", "smem": "#9b59b6", "vmem_load": "#c0392b",
                "vmem_store": "#e74c3c", "lds": "#16a085", "branch": "#7f8c8d", "wait": "#f1c40f",
                "nop": "#bdc3c7", "clause": "#bdc3c7", "end": "#2c3e50", "barrier": "#8e44ad", "other": "#95a5a6",
                "delay_alu": "#bdc3c7"}
CAUSE_COLOURS = {"issue": "#eeeeee", "dependency": "#fdae6b", "pipe": "#9ecae1", "vm": "#fcbba1", "lgkm": "#a1d99b",
                 "vs": "#fc9272", "exp": "#dadaeb", "fetch": "#bcbddc", "launch": "#d9d9d9", "barrier": "#c994c7",
                 "nop": "#e5e5e5", "branch": "#c7e9c0", "arbitration": "#fee391"}
MAX_WAVES = 512          # rows drawn; the page says how many were left out


def timeline_html(report, title: str | None = None, max_waves: int = MAX_WAVES) -> str:
    ops = report.ops
    pcs = sorted(report.per_pc)
    index = {pc: k for k, pc in enumerate(pcs)}
    texts = [report.per_pc[pc].text if pc in report.per_pc else hex(pc) for pc in pcs]
    kinds = [ops[pc].kind if pc in ops else "other" for pc in pcs]
    shown = report.waves[:max_waves]
    rows = []
    for w in shown:
        items = []
        prev = None
        for pc, t, cause in zip(w.pcs, w.issue, w.cause):
            if t < 0:
                continue
            start = w.start if prev is None else prev + 1
            items.append([index[pc], t, start, CAUSES.index("launch" if prev is None else cause)
                          if (prev is None or cause in CAUSES) else 0])
            prev = t
        rows.append({"name": w.name or "", "simd": list(w.simd), "start": w.start, "end": w.end, "items": items})
    t0 = min((w.start for w in shown), default=0)
    t1 = max((w.end for w in shown), default=1)
    data = {"pcs": [hex(pc) for pc in pcs], "texts": texts, "kinds": kinds, "rows": rows, "t0": t0, "t1": t1 + 1,
            "causes": list(CAUSES), "pipeColours": PIPE_COLOURS, "causeColours": CAUSE_COLOURS}
    head = title or f"{report.kernel} ({report.arch}) timeline"
    left_out = len(report.waves) - len(shown)
    legend = "".join(f'<span class="sw" style="background:{c}"></span>{html.escape(k)} ' for k, c in PIPE_COLOURS.items()
                     if k in set(kinds))
    legend2 = "".join(f'<span class="sw" style="background:{c}"></span>{html.escape(k)} ' for k, c in CAUSE_COLOURS.items())
    note = f"<p>{left_out} more waves not drawn (first {len(shown)} shown).</p>" if left_out > 0 else ""
    summary = html.escape(report.summary())
    payload = json.dumps(data, separators=(",", ":")).replace("</", "<\\/")
    return _PAGE.format(title=html.escape(head), summary=summary, legend=legend, legend2=legend2, note=note,
                        data=payload, height=max(120, 14 * len(shown) + 40))


_PAGE = """<!DOCTYPE html>
<html><head><meta charset="utf-8"><title>{title}</title>
<style>
body {{ font: 13px sans-serif; margin: 12px; }}
pre {{ background: #f6f6f6; padding: 6px; }}
.sw {{ display: inline-block; width: 12px; height: 12px; margin: 0 3px 0 10px; vertical-align: middle; }}
#tip {{ position: fixed; background: #ffffe0; border: 1px solid #999; padding: 4px 6px; font: 12px monospace;
        pointer-events: none; display: none; white-space: pre; }}
canvas {{ border: 1px solid #ccc; cursor: crosshair; }}
</style></head><body>
<h2>{title}</h2>
<pre>{summary}</pre>
<div>instructions by pipe: {legend}</div>
<div>stall before an instruction, by cause: {legend2}</div>
{note}
<p>Rows are waves, x is shader-clock cycles (issue timestamps). Wheel: zoom, drag: pan, hover: details.</p>
<canvas id="c" width="1400" height="{height}"></canvas>
<div id="tip"></div>
<script id="timeline-data" type="application/json">{data}</script>
<script>
const D = JSON.parse(document.getElementById('timeline-data').textContent);
const cv = document.getElementById('c'), cx = cv.getContext('2d'), tip = document.getElementById('tip');
const LEFT = 150, ROW = 14, TOP = 24;
let a = D.t0, b = D.t1;
function X(t) {{ return LEFT + (t - a) * (cv.width - LEFT - 10) / (b - a); }}
function draw() {{
  cx.clearRect(0, 0, cv.width, cv.height);
  cx.fillStyle = '#000'; cx.font = '11px sans-serif';
  const step = Math.pow(10, Math.floor(Math.log10(Math.max(1, (b - a) / 8))));
  for (let t = Math.ceil(a / step) * step; t < b; t += step) {{
    const x = X(t); cx.fillStyle = '#ddd'; cx.fillRect(x, TOP - 4, 1, cv.height);
    cx.fillStyle = '#333'; cx.fillText(String(t - D.t0), x + 2, 12);
  }}
  D.rows.forEach((r, i) => {{
    const y = TOP + i * ROW;
    cx.fillStyle = '#333'; cx.fillText(r.name + ' ' + r.simd.join('/'), 2, y + 10);
    for (const [p, t, s, c] of r.items) {{
      if (t < a - 1 || s > b) continue;
      if (t > s) {{ cx.fillStyle = D.causeColours[D.causes[c]] || '#eee'; cx.fillRect(X(s), y + 3, Math.max(1, X(t) - X(s)), ROW - 6); }}
      cx.fillStyle = D.pipeColours[D.kinds[p]] || '#999';
      cx.fillRect(X(t), y + 1, Math.max(1.5, X(t + 1) - X(t)), ROW - 2);
    }}
  }});
}}
function hit(ev) {{
  const rect = cv.getBoundingClientRect(), mx = ev.clientX - rect.left, my = ev.clientY - rect.top;
  const i = Math.floor((my - TOP) / ROW); if (i < 0 || i >= D.rows.length || mx < LEFT) return null;
  const t = a + (mx - LEFT) * (b - a) / (cv.width - LEFT - 10), r = D.rows[i];
  let best = null;
  for (const it of r.items) {{ if (it[2] - 0.5 <= t && t <= it[1] + 1) {{ best = it; break; }} }}
  return best ? [r, best] : null;
}}
cv.addEventListener('mousemove', ev => {{
  if (drag) {{ const d = (ev.clientX - drag) * (b - a) / (cv.width - LEFT - 10); a -= d; b -= d; drag = ev.clientX; draw(); return; }}
  const h = hit(ev); if (!h) {{ tip.style.display = 'none'; return; }}
  const [r, [p, t, s, c]] = h;
  tip.textContent = r.name + '  pc ' + D.pcs[p] + '\\n' + D.texts[p] + '\\nissue cycle ' + (t - D.t0) +
    (t > s ? '\\nstalled ' + (t - s) + ' cycles: ' + D.causes[c] : '');
  tip.style.left = (ev.clientX + 12) + 'px'; tip.style.top = (ev.clientY + 12) + 'px'; tip.style.display = 'block';
}});
let drag = null;
cv.addEventListener('mousedown', ev => {{ drag = ev.clientX; }});
window.addEventListener('mouseup', () => {{ drag = null; }});
cv.addEventListener('wheel', ev => {{
  ev.preventDefault(); const rect = cv.getBoundingClientRect();
  const t = a + (ev.clientX - rect.left - LEFT) * (b - a) / (cv.width - LEFT - 10), f = ev.deltaY > 0 ? 1.25 : 0.8;
  a = t - (t - a) * f; b = t + (b - t) * f; draw();
}});
draw();
</script></body></html>
"""
