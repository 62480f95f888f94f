// The leaderboard's points chart: cumulative game points per player over time, drawn by the vendored
// uPlot (axes with dates, the values of every line under the cursor). Data: json_script "points-chart".
import uPlot from "../../vendor/uplot-1.6.32/uPlot.esm.js";
import { $, jsonScript } from "../common/dom.js";

const root = $("points-chart-box");
if (root && $("points-chart")) {
  const data = jsonScript("points-chart");
  const lang = document.documentElement.lang || "zh-hans";
  const stamp = new Intl.DateTimeFormat(lang, { month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit" });
  const day = new Intl.DateTimeFormat(lang, { month: "2-digit", day: "2-digit" });
  const clock = new Intl.DateTimeFormat(lang, { hour: "2-digit", minute: "2-digit" });
  const size = () => ({ width: Math.max(260, root.clientWidth), height: Math.min(260, Math.max(180, root.clientWidth * 0.5)) });
  const opts = {
    ...size(),
    scales: { x: { time: true } },
    series: [
      { label: root.dataset.timeLabel, value: (u, v) => (v == null ? "—" : stamp.format(new Date(v * 1000))) },
      ...data.series.map((s) => ({ label: s.name, stroke: s.color, width: 2, value: (u, v) => (v == null ? "—" : String(v)) })),
    ],
    axes: [
      {
        values: (u, splits) => {
          const span = u.scales.x.max - u.scales.x.min;
          const by = span < 2 * 86400 ? clock : day; // hours within two days, else dates
          const labels = splits.map((v) => by.format(new Date(v * 1000)));
          root.dataset.xTicks = labels.join("|"); // what the axis shows (tests read it; canvas has no text)
          return labels;
        },
      },
      { size: 48 },
    ],
    cursor: { points: { size: 7 } },
    legend: { live: true },
  };
  const chart = new uPlot(opts, [data.x, ...data.series.map((s) => s.values)], root);
  root.dataset.ready = "1";
  window.addEventListener("resize", () => chart.setSize(size()));
}
