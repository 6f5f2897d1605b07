/**
 * Draws the demo repository's images as SVG scenes and encodes them with sharp, so that the demo ships
 * without photos from the internet. Run: node --import tsx scripts/generate-demo-images.ts
 * Output: services/local-prismic/demo/images/<name>.jpg (1600×900), logo.svg and logo.png.
 */
import { mkdirSync, statSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import sharp from "sharp";
// A fixed pseudo-random sequence: reruns must give byte-identical images.
import { mulberry32 } from "#local-prismic/generate.ts";

const W = 1600;
const H = 900;
const C = {
  navy: "#16324f",
  ink: "#0e2236",
  teal: "#2a9d8f",
  sand: "#f4e9d8",
  paper: "#fffaf2",
  coral: "#e76f51",
  mustard: "#e9c46a",
  sky: "#a8dadc",
  mist: "#e8f1f2",
  moss: "#52796f",
  fern: "#84a98c",
  brown: "#7f5539",
  latte: "#ddb892",
};

const rect = (x: number, y: number, w: number, h: number, fill: string, extra = "") =>
  `<rect x="${x}" y="${y}" width="${w}" height="${h}" fill="${fill}" ${extra}/>`;
const rrect = (x: number, y: number, w: number, h: number, r: number, fill: string, extra = "") =>
  rect(x, y, w, h, fill, `rx="${r}" ${extra}`);
const circle = (cx: number, cy: number, r: number, fill: string, extra = "") =>
  `<circle cx="${cx}" cy="${cy}" r="${r}" fill="${fill}" ${extra}/>`;
const line = (x1: number, y1: number, x2: number, y2: number, stroke: string, width: number, extra = "") =>
  `<line x1="${x1}" y1="${y1}" x2="${x2}" y2="${y2}" stroke="${stroke}" stroke-width="${width}" stroke-linecap="round" ${extra}/>`;
const group = (transform: string, body: string) => `<g transform="${transform}">${body}</g>`;
const shadow = `<filter id="shadow" x="-20%" y="-20%" width="140%" height="150%"><feDropShadow dx="0" dy="18" stdDeviation="22" flood-color="#0e2236" flood-opacity="0.22"/></filter>`;

function svg(defs: string, body: string, w = W, h = H): string {
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" viewBox="0 0 ${w} ${h}"><defs>${shadow}${defs}</defs>${body}</svg>`;
}
const linear = (id: string, from: string, to: string, angle = "x2='1' y2='1'") =>
  `<linearGradient id="${id}" x1="0" y1="0" ${angle.replaceAll("'", '"')}><stop offset="0" stop-color="${from}"/><stop offset="1" stop-color="${to}"/></linearGradient>`;

/** Text lines of a page mock-up, drawn as rounded bars. */
function textBars(
  x: number,
  y: number,
  width: number,
  rows: number,
  color: string,
  random: () => number,
): string {
  let out = "";
  for (let i = 0; i < rows; i++) out += rrect(x, y + i * 22, width * (0.55 + random() * 0.45), 10, 5, color);
  return out;
}

function browser(x: number, y: number, w: number, h: number, content: string, bar = C.mist): string {
  return group(
    `translate(${x} ${y})`,
    `${rrect(0, 0, w, h, 18, "#ffffff", 'filter="url(#shadow)"')}${rrect(0, 0, w, 44, 18, bar)}${rect(0, 26, w, 18, bar)}` +
      `${circle(26, 22, 7, C.coral)}${circle(50, 22, 7, C.mustard)}${circle(74, 22, 7, C.teal)}` +
      `${rrect(110, 12, w * 0.45, 20, 10, "#ffffff")}${group("translate(0 44)", content)}`,
  );
}

function phone(x: number, y: number, w: number, h: number, content: string, rotate = 0): string {
  return group(
    `translate(${x} ${y}) rotate(${rotate})`,
    `${rrect(0, 0, w, h, 34, C.ink, 'filter="url(#shadow)"')}${rrect(10, 10, w - 20, h - 20, 26, "#ffffff")}` +
      `${rrect(w / 2 - 30, 18, 60, 10, 5, C.ink)}${group("translate(10 40)", content)}`,
  );
}

function heroStudio(): string {
  const r = mulberry32(1);
  let swatches = "";
  const colors = [C.coral, C.mustard, C.teal, C.sky, C.navy, C.moss];
  colors.forEach((color, i) => {
    swatches += group(
      `translate(${1130 + (i % 3) * 110} ${560 + Math.floor(i / 3) * 150}) rotate(${-12 + r() * 24})`,
      `${rrect(0, 0, 96, 130, 6, C.paper, 'filter="url(#shadow)"')}${rrect(8, 8, 80, 80, 4, color)}${rrect(8, 100, 50, 8, 4, "#c9bfae")}`,
    );
  });
  const screen =
    rrect(40, 30, 260, 26, 8, C.navy) +
    rrect(40, 80, 600, 150, 14, C.sky) +
    circle(520, 155, 50, C.coral, 'opacity="0.9"') +
    textBars(40, 260, 280, 4, "#d6dde3", r) +
    rrect(380, 260, 260, 110, 12, C.mustard, 'opacity="0.8"');
  const laptop = group(
    "translate(360 190) rotate(-4)",
    `${rrect(0, 0, 700, 440, 22, C.ink, 'filter="url(#shadow)"')}${rrect(18, 18, 664, 404, 10, "#ffffff")}${group("translate(12 10)", screen)}` +
      `${rrect(-60, 440, 820, 36, 14, "#b7c1ca")}${rrect(300, 440, 100, 12, 6, "#9aa6b1")}`,
  );
  const sketch = group(
    "translate(80 470) rotate(8)",
    `${rrect(0, 0, 330, 380, 8, C.paper, 'filter="url(#shadow)"')}` +
      `${rect(30, 40, 270, 90, "none", `stroke="${C.navy}" stroke-width="4" stroke-dasharray="10 8"`)}` +
      `${line(30, 40, 300, 130, C.navy, 3)}${line(300, 40, 30, 130, C.navy, 3)}` +
      textBars(30, 160, 260, 5, "#c8bba6", r) +
      `${rrect(30, 290, 120, 44, 22, C.coral)}`,
  );
  const pencil = group(
    "translate(1130 230) rotate(35)",
    `${rrect(0, 0, 300, 26, 4, C.mustard)}${`<polygon points="300,0 340,13 300,26" fill="${C.latte}"/>`}${rect(0, 0, 30, 26, C.coral)}`,
  );
  const cup = group(
    "translate(1350 240)",
    `${circle(0, 0, 90, "#ffffff", 'filter="url(#shadow)"')}${circle(0, 0, 70, C.brown)}${circle(-18, -18, 22, "#9c6b46", 'opacity="0.7"')}`,
  );
  return svg(
    linear("bg", C.sand, "#ecd9bd"),
    `${rect(0, 0, W, H, "url(#bg)")}${circle(200, 120, 260, C.sky, 'opacity="0.35"')}${sketch}${laptop}${swatches}${pencil}${cup}`,
  );
}

function harborCoffee(): string {
  const r = mulberry32(2);
  const bag = (x: number, y: number, s: number, color: string) =>
    group(
      `translate(${x} ${y}) scale(${s})`,
      `<path d="M0 30 L20 0 H140 L160 30 V260 Q80 275 0 260 Z" fill="${color}"/>${rrect(30, 90, 100, 70, 8, C.paper)}${circle(80, 125, 20, C.brown)}`,
    );
  const shop =
    rrect(30, 30, 200, 22, 8, C.brown) +
    rrect(30, 80, 440, 320, 16, "#f3e6d6") +
    bag(150, 110, 1, C.coral) +
    textBars(520, 90, 380, 3, "#d8c7b4", r) +
    rrect(520, 180, 240, 50, 25, C.brown) +
    textBars(520, 270, 400, 5, "#e6dacb", r);
  const mobile =
    rrect(20, 10, 220, 220, 14, "#f3e6d6") +
    bag(70, 40, 0.72, C.mustard) +
    textBars(20, 260, 220, 4, "#d8c7b4", r);
  let beans = "";
  for (let i = 0; i < 26; i++) {
    const [x, y] = [Math.round(r() * W), Math.round(r() * H)];
    beans += group(
      `translate(${x} ${y}) rotate(${Math.round(r() * 180)})`,
      `<ellipse rx="22" ry="14" fill="${C.latte}" opacity="0.22"/>${line(-16, 0, 16, 0, "#3d2b1f", 3, 'opacity="0.3"')}`,
    );
  }
  return svg(
    linear("bg", "#3d2b1f", C.brown),
    `${rect(0, 0, W, H, "url(#bg)")}${beans}${circle(1350, 150, 300, C.latte, 'opacity="0.18"')}` +
      `${browser(140, 150, 980, 520, shop, "#f3e6d6")}${phone(1140, 250, 280, 560, mobile, 6)}`,
  );
}

function fernlineBikes(): string {
  const r = mulberry32(3);
  let calendar = rrect(30, 30, 260, 24, 8, C.moss);
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 7; col++) {
      const busy = r() > 0.62;
      calendar += rrect(30 + col * 92, 80 + row * 70, 80, 58, 10, busy ? C.fern : C.mist);
      if (busy) calendar += rrect(40 + col * 92, 96 + row * 70, 50, 8, 4, "#ffffff");
    }
  }
  calendar +=
    rrect(700, 80, 220, 340, 14, C.mist) +
    textBars(720, 110, 170, 6, "#c6d4cc", r) +
    rrect(720, 360, 180, 44, 22, C.coral);
  const wheel = (cx: number) =>
    circle(cx, 0, 110, "none", `stroke="${C.ink}" stroke-width="14"`) + circle(cx, 0, 12, C.ink);
  const bike = group(
    "translate(1060 660)",
    `${wheel(0)}${wheel(300)}<polyline points="0,0 110,-150 230,-150 300,0 150,0 110,-150" fill="none" stroke="${C.coral}" stroke-width="16" stroke-linejoin="round"/>` +
      `${line(230, -150, 210, -200, C.ink, 12)}${line(180, -205, 250, -205, C.ink, 12)}${line(110, -150, 90, -185, C.ink, 12)}${rrect(55, -200, 80, 18, 9, C.ink)}`,
  );
  return svg(
    linear("bg", "#d8e9dc", C.fern),
    `${rect(0, 0, W, H, "url(#bg)")}<path d="M0 720 Q400 620 800 700 T1600 660 V900 H0Z" fill="${C.moss}" opacity="0.5"/>` +
      `${browser(100, 110, 960, 520, calendar)}${bike}`,
  );
}

function alderClinic(): string {
  const r = mulberry32(4);
  const cross = (x: number, y: number, s: number, color: string) =>
    group(
      `translate(${x} ${y}) scale(${s})`,
      `${rrect(-14, -44, 28, 88, 6, color)}${rrect(-44, -14, 88, 28, 6, color)}`,
    );
  let cards = "";
  for (let i = 0; i < 3; i++) {
    const x = 40 + i * 310;
    cards +=
      rrect(x, 250, 280, 230, 16, C.mist) +
      circle(x + 50, 300, 26, [C.sky, C.teal, C.mustard][i] ?? C.sky) +
      textBars(x + 24, 350, 220, 3, "#c5d3de", r) +
      rrect(x + 24, 430, 120, 30, 15, C.navy);
  }
  const page =
    rrect(40, 30, 220, 24, 8, C.navy) +
    rrect(40, 80, 900, 140, 16, "#dcecf4") +
    cross(120, 150, 0.9, C.coral) +
    textBars(200, 120, 500, 3, "#a9c3d6", r) +
    cards;
  return svg(
    linear("bg", "#eef6fb", C.sky),
    `${rect(0, 0, W, H, "url(#bg)")}${circle(1400, 760, 340, "#ffffff", 'opacity="0.45"')}${circle(180, 140, 160, "#ffffff", 'opacity="0.5"')}` +
      `${cross(1360, 230, 2.2, C.coral)}${browser(220, 160, 980, 560, page)}`,
  );
}

function tidewaterBooks(): string {
  const r = mulberry32(5);
  let events = rrect(30, 20, 200, 24, 8, C.navy);
  for (let i = 0; i < 5; i++) {
    const y = 70 + i * 92;
    events +=
      rrect(30, y, 640, 78, 12, i === 1 ? "#fdeed9" : C.mist) +
      rrect(44, y + 12, 54, 54, 10, [C.coral, C.teal, C.mustard, C.navy, C.moss][i] ?? C.teal) +
      textBars(118, y + 18, 400, 2, "#c2cfd8", r);
  }
  const tablet = group(
    "translate(180 150) rotate(-3)",
    `${rrect(0, 0, 760, 600, 36, C.ink, 'filter="url(#shadow)"')}${rrect(22, 22, 716, 556, 18, "#ffffff")}${group("translate(30 30)", events)}`,
  );
  let books = "";
  let y = 780;
  for (let i = 0; i < 7; i++) {
    const h = 46 + Math.floor(r() * 26);
    const w = 330 + Math.floor(r() * 90);
    y -= h + 4;
    books += rrect(
      1100 + r() * 40,
      y,
      w,
      h,
      6,
      [C.coral, C.teal, C.mustard, C.paper, C.moss, C.latte, C.sky][i] ?? C.teal,
    );
  }
  return svg(
    linear("bg", "#1d4e5a", C.navy),
    `${rect(0, 0, W, H, "url(#bg)")}` +
      `<path d="M0 640 Q200 580 400 640 T800 640 T1200 640 T1600 640 V900 H0Z" fill="${C.teal}" opacity="0.35"/>` +
      `<path d="M0 720 Q200 660 400 720 T800 720 T1200 720 T1600 720 V900 H0Z" fill="${C.sky}" opacity="0.25"/>` +
      `${tablet}<g filter="url(#shadow)">${books}</g>`,
  );
}

function aboutTeam(): string {
  const r = mulberry32(6);
  const seats: string[] = [];
  const skin = ["#f1c27d", "#c68642", "#8d5524", "#e0ac69", "#ffdbac", "#a0522d", "#d9a066", "#6b4226"];
  const shirts = [C.coral, C.teal, C.mustard, C.navy, C.moss, C.sky, C.latte, C.fern];
  for (let i = 0; i < 8; i++) {
    const top = i < 4;
    const x = 430 + (i % 4) * 240;
    const y = top ? 210 : 690;
    seats.push(
      circle(x, y + (top ? -10 : 10), 78, shirts[i] ?? C.teal) +
        circle(x, y + (top ? -40 : 40), 44, skin[i] ?? C.latte),
    );
  }
  let table = rrect(300, 270, 1000, 360, 60, "#c8a27a", 'filter="url(#shadow)"');
  for (let i = 0; i < 8; i++) {
    const x = 380 + (i % 4) * 240;
    const y = i < 4 ? 300 : 480;
    table += rrect(x, y, 110 + r() * 30, 110, 10, i % 3 === 0 ? C.paper : "#dfe6ec");
  }
  table += circle(800, 450, 40, C.paper) + circle(800, 450, 26, C.brown);
  return svg(linear("bg", "#f6efe6", C.sand), `${rect(0, 0, W, H, "url(#bg)")}${seats.join("")}${table}`);
}

function aboutWorkshop(): string {
  const r = mulberry32(7);
  let notes = "";
  const colors = [C.mustard, C.coral, C.sky, C.fern];
  for (let col = 0; col < 6; col++) {
    for (let row = 0; row < 3; row++) {
      if (r() < 0.2) continue;
      notes += group(
        `translate(${760 + col * 120} ${190 + row * 130}) rotate(${-5 + r() * 10})`,
        `${rect(0, 0, 96, 96, colors[(col + row) % 4] ?? C.mustard, 'filter="url(#shadow)"')}${textBars(12, 20, 70, 3, "rgba(14,34,54,0.25)", r)}`,
      );
    }
  }
  let outlines = "";
  for (let i = 0; i < 3; i++) {
    const x = 170 + i * 180;
    outlines +=
      rect(x, 190, 150, 400, "none", `stroke="${C.navy}" stroke-width="4" rx="8"`) +
      rect(x + 16, 206, 118, 60, "none", `stroke="${C.teal}" stroke-width="4" rx="4"`) +
      textBars(x + 16, 290, 110, 6, "rgba(22,50,79,0.35)", r) +
      rect(
        x + 16,
        450,
        118,
        110,
        "none",
        `stroke="${C.coral}" stroke-width="4" rx="4" stroke-dasharray="12 8"`,
      );
  }
  const arrows = `${line(690, 400, 740, 400, C.navy, 6)}<polygon points="740,388 760,400 740,412" fill="${C.navy}"/>`;
  return svg(
    linear("bg", "#d9dee3", "#b9c3cc"),
    `${rect(0, 0, W, H, "url(#bg)")}${rrect(110, 110, 1380, 620, 20, "#ffffff", 'filter="url(#shadow)"')}` +
      `${rrect(110, 110, 1380, 620, 20, "none", `stroke="#9aa6b1" stroke-width="14"`)}${outlines}${arrows}${notes}` +
      `${rrect(420, 760, 760, 26, 10, "#9aa6b1")}${rrect(600, 748, 90, 16, 8, C.coral)}${rrect(720, 748, 90, 16, 8, C.teal)}`,
  );
}

function aboutDesk(): string {
  const r = mulberry32(8);
  let keys = "";
  for (let row = 0; row < 5; row++) {
    for (let col = 0; col < 14; col++) keys += rrect(24 + col * 46, 24 + row * 46, 38, 38, 6, "#e9edf0");
  }
  const keyboard = group(
    "translate(560 520) rotate(-6)",
    `${rrect(0, 0, 690, 270, 20, "#c9d1d8", 'filter="url(#shadow)"')}${keys}`,
  );
  const sketchbook = group(
    "translate(180 160) rotate(-10)",
    `${rrect(0, 0, 520, 380, 12, C.navy, 'filter="url(#shadow)"')}${rrect(14, 10, 492, 360, 8, C.paper)}${line(260, 10, 260, 370, "#d9cdb8", 3)}` +
      `<path d="M50 260 Q120 120 200 220 T240 160" fill="none" stroke="${C.coral}" stroke-width="6" stroke-linecap="round"/>` +
      `${circle(150, 110, 40, "none", `stroke="${C.teal}" stroke-width="6"`)}${textBars(290, 60, 180, 10, "#d2c5ae", r)}`,
  );
  const cup = group(
    "translate(1310 240)",
    `${circle(0, 0, 110, "#ffffff", 'filter="url(#shadow)"')}${circle(0, 0, 86, "#4a2f1d")}<path d="M-30 -10 Q0 -40 30 -10 Q0 20 -30 -10Z" fill="${C.latte}"/>` +
      `${rrect(96, -26, 60, 52, 26, "none", 'stroke="#ffffff" stroke-width="18"')}`,
  );
  const plant = group(
    "translate(1380 720)",
    `${circle(0, 0, 95, C.latte)}${circle(-40, -30, 60, C.moss)}${circle(40, -20, 64, C.fern)}${circle(0, 30, 56, C.moss)}`,
  );
  return svg(
    linear("bg", "#e9dccb", "#cfb99b"),
    `${rect(0, 0, W, H, "url(#bg)")}${sketchbook}${keyboard}${cup}${plant}`,
  );
}

function servicesHero(): string {
  const r = mulberry32(9);
  let layers = "";
  const fills = [C.navy, C.teal, C.coral];
  for (let i = 0; i < 3; i++) {
    const content =
      rrect(30, 30, 180, 20, 8, fills[i] ?? C.teal) +
      rrect(30, 70, 640, 150, 14, i === 2 ? "#fde5dc" : i === 1 ? "#d5efeb" : "#dbe4ee") +
      textBars(30, 250, 420, 4, "#d6dde3", r) +
      rrect(500, 250, 170, 100, 12, C.mustard, 'opacity="0.8"');
    layers += group(
      `translate(${250 + i * 230} ${130 + i * 120}) skewY(-8)`,
      `${rrect(0, 0, 700, 400, 22, "#ffffff", 'filter="url(#shadow)"')}${content}`,
    );
  }
  return svg(
    linear("bg", C.navy, "#2a6f79"),
    `${rect(0, 0, W, H, "url(#bg)")}${circle(1400, 120, 260, C.teal, 'opacity="0.35"')}${circle(120, 820, 240, C.coral, 'opacity="0.25"')}${layers}`,
  );
}

const LOGO_MARK =
  `${circle(80, 80, 72, C.navy)}${circle(80, 80, 56, "none", `stroke="${C.sky}" stroke-width="4"`)}` +
  `<polygon points="80,22 102,88 80,78 58,88" fill="${C.coral}"/><polygon points="80,138 102,72 80,82 58,72" fill="${C.sand}"/>`;
function logo(): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="640" height="160" viewBox="0 0 640 160">` +
    `<title>Northwind Studio</title>${LOGO_MARK}` +
    `<text x="178" y="96" font-family="Inter, 'Helvetica Neue', Arial, 'DejaVu Sans', sans-serif" font-size="54" font-weight="700" fill="${C.navy}" letter-spacing="-1">Northwind</text>` +
    `<text x="180" y="132" font-family="Inter, 'Helvetica Neue', Arial, 'DejaVu Sans', sans-serif" font-size="24" font-weight="400" fill="${C.teal}" letter-spacing="6">STUDIO</text>` +
    `</svg>\n`
  );
}

export const SCENES: Record<string, () => string> = {
  "hero-studio": heroStudio,
  "work-harbor-coffee": harborCoffee,
  "work-fernline-bikes": fernlineBikes,
  "work-alder-clinic": alderClinic,
  "work-tidewater-books": tidewaterBooks,
  "about-team": aboutTeam,
  "about-workshop": aboutWorkshop,
  "about-desk": aboutDesk,
  "services-hero": servicesHero,
};

async function main(): Promise<void> {
  const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
  const out = join(root, "services", "local-prismic", "demo", "images");
  mkdirSync(out, { recursive: true });
  let total = 0;
  const write = (name: string, bytes: Buffer | string) => {
    const file = join(out, name);
    writeFileSync(file, bytes);
    total += statSync(file).size;
    console.log(`${name.padEnd(28)} ${(statSync(file).size / 1024).toFixed(1)} KiB`);
  };
  for (const [name, draw] of Object.entries(SCENES)) {
    write(`${name}.jpg`, await sharp(Buffer.from(draw())).jpeg({ quality: 78, mozjpeg: true }).toBuffer());
  }
  const logoSvg = logo();
  write("logo.svg", logoSvg);
  write("logo.png", await sharp(Buffer.from(logoSvg)).png({ compressionLevel: 9, palette: true }).toBuffer());
  console.log(`total ${(total / 1024).toFixed(1)} KiB`);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
