// A line chart as a self-contained SVG: the soak's commit latency (p50 and p99 per time bucket) and each
// process's RSS over the run, to be looked at rather than parsed.
export interface Series {
  name: string;
  points: [number, number][];
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#17becf', '#bcbd22'];
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

/** Round steps for an axis from 0 to `max`: 1, 2 or 5 times a power of ten, about five of them. */
function ticks(max: number): number[] {
  if (!(max > 0)) return [0];
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * power).find((s) => s >= raw)!;
  return Array.from({ length: Math.floor(max / step) + 1 }, (_, i) => i * step);
}

export function lineChart(title: string, xLabel: string, yLabel: string, series: Series[]): string {
  const W = 960;
  const H = 420;
  const L = 70;
  const R = 180;
  const T = 40;
  const B = 50;
  const all = series.flatMap((s) => s.points);
  const maxX = Math.max(1, ...all.map((p) => p[0]));
  const maxY = Math.max(1e-9, ...all.map((p) => p[1])) * 1.05;
  const x = (v: number) => L + (v / maxX) * (W - L - R);
  const y = (v: number) => H - B - (v / maxY) * (H - T - B);
  const parts = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${L}" y="22" font-size="15">${escape(title)}</text>`,
    `<line x1="${L}" y1="${H - B}" x2="${W - R}" y2="${H - B}" stroke="black"/>`,
    `<line x1="${L}" y1="${T}" x2="${L}" y2="${H - B}" stroke="black"/>`,
    `<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${escape(xLabel)}</text>`,
    `<text x="16" y="${(T + H - B) / 2}" text-anchor="middle" transform="rotate(-90 16 ${(T + H - B) / 2})">${escape(yLabel)}</text>`,
  ];
  for (const t of ticks(maxX)) parts.push(`<line x1="${x(t)}" y1="${H - B}" x2="${x(t)}" y2="${H - B + 5}" stroke="black"/><text x="${x(t)}" y="${H - B + 18}" text-anchor="middle">${t}</text>`);
  for (const t of ticks(maxY)) parts.push(`<line x1="${L - 5}" y1="${y(t)}" x2="${W - R}" y2="${y(t)}" stroke="#ddd"/><text x="${L - 8}" y="${y(t) + 4}" text-anchor="end">${t}</text>`);
  series.forEach((s, i) => {
    const colour = COLOURS[i % COLOURS.length]!;
    const path = s.points.map(([px, py]) => `${x(px).toFixed(1)},${y(py).toFixed(1)}`).join(' ');
    parts.push(`<polyline fill="none" stroke="${colour}" stroke-width="2" points="${path}"/>`);
    parts.push(`<rect x="${W - R + 15}" y="${T + i * 20}" width="12" height="12" fill="${colour}"/><text x="${W - R + 33}" y="${T + i * 20 + 11}">${escape(s.name)}</text>`);
  });
  parts.push('</svg>');
  return parts.join('\n');
}
