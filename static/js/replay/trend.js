// The profile's 复盘 trend: mean loss per decision and mistake rate per week, with the hands behind
// each point, drawn by the vendored uPlot as the leaderboard's chart is (static/js/ledgers/chart.js).
// Data: json_script "review-trend-data" (apps/replays/review/templatetags/review_tags.py).
import uPlot from "../../vendor/uplot-1.6.32/uPlot.esm.js";
import { $, jsonScript } from "../common/dom.js";

const root = $("review-trend-chart");
if (root && $("review-trend-data")) {
  const data = jsonScript("review-trend-data");
  const lang = document.documentElement.lang || "zh-hans";
  const day = new Intl.DateTimeFormat(lang, { year: "numeric", month: "2-digit", day: "2-digit" });
  const short = new Intl.DateTimeFormat(lang, { month: "2-digit", day: "2-digit" });
  // The x axis counts weeks (0, 1, ...) and is labelled with each week's date: a point per reviewed
  // week, evenly spaced, half a step of margin either side (one week alone sits in the middle).
  const idx = data.x.map((_, i) => i);
  const label = (i) => (Number.isInteger(i) && data.x[i] !== undefined ? short.format(new Date(data.x[i] * 1000)) : "");
  const size = () => ({ width: Math.max(260, root.clientWidth), height: Math.min(240, Math.max(170, root.clientWidth * 0.5)) });
  const opts = {
    ...size(),
    scales: {
      x: { time: false, range: () => [-0.5, Math.max(0.5, idx.length - 0.5)] },
      loss: { range: (u, min, max) => [0, Math.max(1, (max || 0) * 1.15)] },
      rate: { range: (u, min, max) => [0, Math.max(10, (max || 0) * 1.15)] },
    },
    series: [
      { label: root.dataset.timeLabel, value: (u, i) => (i == null ? "—" : `${day.format(new Date(data.x[i] * 1000))} · ${data.hands[i]} ${root.dataset.handsLabel}`) },
      { label: root.dataset.lossLabel, scale: "loss", stroke: "#b4232a", width: 2, points: { size: 7 }, value: (u, v) => (v == null ? "—" : v.toFixed(2)) },
      { label: root.dataset.rateLabel, scale: "rate", stroke: "#2f6fb4", width: 2, dash: [6, 4], points: { size: 7 }, value: (u, v) => (v == null ? "—" : `${v}%`) },
    ],
    axes: [
      { space: 60, incrs: [1, 2, 4, 8, 13, 26], values: (u, splits) => splits.map(label) },
      { scale: "loss", size: 44 },
      { scale: "rate", side: 1, size: 44, grid: { show: false }, values: (u, splits) => splits.map((v) => `${v}%`) },
    ],
    cursor: { points: { size: 7 } },
    legend: { live: true },
  };
  const chart = new uPlot(opts, [idx, data.mean_loss, data.mistake_rate], root);
  root.dataset.ready = "1";
  window.addEventListener("resize", () => chart.setSize(size()));
}
