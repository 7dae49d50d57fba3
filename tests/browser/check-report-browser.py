#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report in a real browser (TAP): `nodebw report` on a recorded results file, then
report.html and every page it links opened in headless Chromium through chromedriver and
Selenium, at a desktop (1366x900) and a phone (390x844) viewport. Fails when a page is wider
than the window, when an image does not load, when the browser logs an error, when the main
page is longer than MAX_SCREENS desktop screens, when the first section is not the summary or
has no picture beside its text, when a table row is taller than a few lines; and on the phone
when any text (HTML, or an SVG label at the size the picture is shown) is below MIN_FONT_PX,
when a table wider than the screen has no scrolling box of its own or lets its first column
scroll away, or when the first screen does not show the verdict and a figure. Then shows that
these checks catch a doctored copy of the page. Prints each page's height in screens, its
smallest font and its wide tables. Skips (exit 77) only when chromium, chromedriver or
Selenium is missing."""
import os
import re
import shutil
import subprocess
import sys
import tempfile

FIXTURE = os.environ.get("NODEBW_BROWSER_FIXTURE", "results-omp-host-2cpu-vm.json")
WIDE, NARROW, HEIGHT = 1366, 800, 900
PHONE, PHONE_HEIGHT = 390, 844
# The main page is read in a few minutes: at most this many desktop screens.
MAX_SCREENS = 15
# No text smaller than this on a phone (CSS pixels), in the page or in a picture.
MIN_FONT_PX = 10.0
# A table row taller than this many of its lines is a wall of text, not a table row (the
# height of each cell's text, its padding left out).
MAX_ROW_LINES = 3

n_tests = 0
failed = 0


def check(ok, desc, detail=""):
    global n_tests, failed
    n_tests += 1
    if not ok:
        failed += 1
    print(f"{'ok' if ok else 'not ok'} {n_tests} - {desc}")
    for line in ("" if ok else str(detail)).splitlines():
        if line.strip():
            print(f"#   {line}")


def skip_all(why):
    print(f"1..0 # SKIP {why}")
    sys.exit(77)


def find_tools():
    chromium = shutil.which("chromium") or shutil.which("chromium-browser")
    driver = shutil.which("chromedriver") or (
        "/usr/bin/chromedriver" if os.path.exists("/usr/bin/chromedriver") else None)
    if not chromium:
        skip_all("chromium is not installed (Debian package chromium)")
    if not driver:
        skip_all("chromedriver is not installed (Debian package chromium-driver)")
    try:
        import selenium  # noqa: F401
    except ImportError:
        skip_all("Selenium is not installed (Debian package python3-selenium)")
    return chromium, driver


def start_report(out):
    """nodebw report on the fixture, started in the background (the browser starts
    meanwhile)."""
    src = os.environ["NODEBW_SOURCE"]
    return subprocess.Popen([os.environ["NODEBW"], "report", "--output", out,
                             os.path.join(src, "tests", "fixtures", FIXTURE)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def finish_report(proc, out):
    try:
        _, err = proc.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        proc.kill()
        _, err = proc.communicate()
    check(proc.returncode == 0, f"nodebw report on {FIXTURE} exits 0", err)
    return os.path.join(out, "report.html")


def start(chromium, driver_path):
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = chromium
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars", "--remote-debugging-pipe",
              f"--window-size={WIDE},{HEIGHT}"):
        opts.add_argument(a)
    # --remote-debugging-pipe: chromedriver talks to chromium over a pipe, not over a TCP
    # port on "localhost", which a minimal root file system without /etc/hosts cannot name.
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    from selenium.webdriver.common import utils

    class Loopback(Service):
        """chromedriver reached at 127.0.0.1, not "localhost": a machine whose /etc/hosts
        does not name localhost (a minimal root file system has none) still runs the test."""

        @property
        def service_url(self):
            return f"http://127.0.0.1:{self.port}"

        def is_connectable(self):
            return utils.is_connectable(self.port, host="127.0.0.1")

    return webdriver.Chrome(service=Loopback(driver_path), options=opts)


def set_width(drv, width, height=HEIGHT):
    """The viewport (window.innerWidth x innerHeight) at \\p width x \\p height CSS pixels."""
    drv.set_window_size(width, height)
    iw, ih = drv.execute_script("return [window.innerWidth, window.innerHeight]")
    if iw != width or ih != height:
        drv.set_window_size(width + (width - iw), height + (height - ih))
    return drv.execute_script("return window.innerWidth")


OVERFLOW_JS = """
const d = document.documentElement, wide = [];
for (const e of document.body.querySelectorAll('*')) {
  const r = e.getBoundingClientRect();
  if (r.right > window.innerWidth + 1 && wide.length < 5)
    wide.push(e.tagName + (e.className ? '.' + e.className : '') + ' right=' +
              Math.round(r.right));
}
return [d.scrollWidth, window.innerWidth, wide];
"""

IMAGES_JS = """
return Array.from(document.images).map(i => [i.getAttribute('src'), i.complete,
                                             i.naturalWidth]);
"""

# The first section: the first h2 and what lies between it and the next h2.
FIRST_SECTION_JS = """
const hs = document.querySelectorAll('h2');
if (!hs.length) return null;
const h = hs[0], next = hs[1] || null, inside = [];
for (let e = h.nextElementSibling; e && e !== next; e = e.nextElementSibling) inside.push(e);
const all = document.body.querySelectorAll('table, figure');
const first = all.length ? all[0] : null;
const fig = inside.find(e => e.tagName === 'FIGURE' || e.querySelector('figure'));
const figure = fig ? (fig.tagName === 'FIGURE' ? fig : fig.querySelector('figure')) : null;
const text = inside.find(e => e.tagName === 'UL' ||
                          (e.tagName === 'P' && !e.classList.contains('verdict')));
let beside = false;
if (figure && text) {
  const f = figure.getBoundingClientRect(), t = text.getBoundingClientRect();
  beside = f.top < t.bottom && t.top < f.bottom && (f.left >= t.right - 1 || f.right <= t.left + 1 ||
           (f.left > t.left + 100));
}
return {title: h.textContent.trim(),
        first_is_inside: first !== null && inside.some(e => e === first || e.contains(first)),
        first_tag: first ? first.tagName : null,
        figure: !!figure, beside: beside,
        figure_top: figure ? Math.round(figure.getBoundingClientRect().top + window.scrollY) : -1};
"""

ROWS_JS = """
const out = [];
for (const t of document.querySelectorAll('table')) {
  let worst = 0, lh = 0;
  for (const td of t.querySelectorAll('tbody td')) {
    const cs = getComputedStyle(td);
    let l = parseFloat(cs.lineHeight);
    if (!(l > 0)) l = 1.2 * parseFloat(cs.fontSize);
    const text = td.clientHeight - parseFloat(cs.paddingTop) - parseFloat(cs.paddingBottom);
    const lines = Math.round(10 * text / l) / 10;
    if (lines > worst) { worst = lines; lh = l; }
  }
  const cap = t.querySelector('caption');
  out.push([cap ? cap.textContent.slice(0, 60) : '(no caption)', worst]);
}
return out;
"""


def width_problem(drv, width):
    """"" when the page fits \p width CSS pixels, else what sticks out."""
    set_width(drv, width)
    shots = os.environ.get("NODEBW_BROWSER_SHOTS")  # a folder for screenshots, to look at
    if shots:
        os.makedirs(shots, exist_ok=True)
        drv.save_screenshot(os.path.join(shots, f"report-{width}.png"))
    sw, iw, wide = drv.execute_script(OVERFLOW_JS)
    if sw <= iw:
        return ""
    return "\n".join([f"scrollWidth {sw} > innerWidth {iw}; past the right edge:"] + wide)


def image_problems(drv):
    imgs = drv.execute_script(IMAGES_JS)
    bad = [f"{s}: complete={c} naturalWidth={w}" for s, c, w in imgs if not (c and w > 0)]
    return len(imgs), "\n".join(bad[:8])


def console_errors(drv):
    logs = [e for e in drv.get_log("browser") if e.get("level") == "SEVERE"]
    return "\n".join(e.get("message", "") for e in logs[:8])


def tall_rows(drv):
    rows = drv.execute_script(ROWS_JS)
    tall = [f"{c}: {w:.1f} lines" for c, w in rows if w > MAX_ROW_LINES]
    return len(rows), "\n".join(tall[:8])


PHONE_JS = r"""
const out = {height: document.documentElement.scrollHeight, ih: window.innerHeight};
let minf = 1e9, minel = '';
const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
while (walker.nextNode()) {
  const n = walker.currentNode;
  if (!n.textContent.trim()) continue;
  const e = n.parentElement, r = e.getBoundingClientRect();
  if (!r.width || !r.height) continue;
  const fs = parseFloat(getComputedStyle(e).fontSize);
  if (fs < minf) { minf = fs; minel = e.tagName + ': ' + n.textContent.trim().slice(0, 40); }
}
out.minfont = [minf, minel];
out.unboxed = []; out.loose = []; out.nwide = 0;
for (const t of document.querySelectorAll('table')) {
  if (t.getBoundingClientRect().width <= window.innerWidth) continue;
  out.nwide++;
  let box = null;
  for (let p = t.parentElement; p && p !== document.body; p = p.parentElement) {
    const cs = getComputedStyle(p);
    if ((cs.overflowX === 'auto' || cs.overflowX === 'scroll') &&
        p.getBoundingClientRect().width <= window.innerWidth) { box = p; break; }
  }
  const cap = (t.querySelector('caption') || {textContent: '(no caption)'}).textContent;
  if (!box) { out.unboxed.push(cap.slice(0, 60)); continue; }
  const td = t.querySelector('tbody td');
  if (td && getComputedStyle(td).position !== 'sticky') out.loose.push(cap.slice(0, 60));
}
out.imgs = Array.from(document.images).map(i => {
  const r = i.getBoundingClientRect();
  return [i.currentSrc, r.width, r.top + window.scrollY, r.bottom + window.scrollY];
});
const v = document.querySelector('p.verdict');
out.verdict_bottom = v ? v.getBoundingClientRect().bottom + window.scrollY : null;
out.links = Array.from(document.querySelectorAll('a[href$=".html"]'))
  .map(a => a.getAttribute('href')).filter(h => !h.includes(':') && !h.startsWith('/'));
return out;
"""


def svg_label_px(src, shown_width):
    """The smallest text of SVG file \p src (a file:// URL) drawn \p shown_width CSS pixels
    wide: its font size in the picture's own units times the scale it is shown at."""
    path = src[len("file://"):] if src.startswith("file://") else src
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError:
        return None
    m = re.search(r'viewBox="[-\d.]+ [-\d.]+ ([\d.]+)', text) or \
        re.search(r'<svg[^>]*\swidth="([\d.]+)', text)
    sizes = [float(x) for x in re.findall(r'font-size[=:]\s*"?([\d.]+)', text)]
    if not m or not sizes or not shown_width:
        return None
    return min(sizes) * shown_width / float(m.group(1))


def phone_view(drv):
    """The page at the phone's viewport: PHONE_JS's answer, and the smallest SVG label."""
    set_width(drv, PHONE, PHONE_HEIGHT)
    o = drv.execute_script(PHONE_JS)
    small = (1e9, "")
    for src, width, _top, _bottom in o["imgs"]:
        if src.endswith(".svg"):
            px = svg_label_px(src, width)
            if px is not None and px < small[0]:
                small = (px, os.path.basename(src))
    o["svg_min"] = small
    return o


def check_phone(drv, name, main):
    o = phone_view(drv)
    shots = os.environ.get("NODEBW_BROWSER_SHOTS")
    if shots:
        drv.save_screenshot(os.path.join(shots, f"{name}-{PHONE}.png"))
    f, where = o["minfont"]
    check(f >= MIN_FONT_PX, f"{name} at {PHONE} px: no text below {MIN_FONT_PX:g} px "
          f"(smallest {f:g} px)", where)
    px, svg = o["svg_min"]
    check(px >= MIN_FONT_PX, f"{name} at {PHONE} px: no picture's label below "
          f"{MIN_FONT_PX:g} px as shown", f"smallest {px:.1f} px: {svg}")
    check(not o["unboxed"], f"{name} at {PHONE} px: every table wider than the screen "
          f"scrolls in its own box ({o['nwide']} wide)", "\n".join(o["unboxed"][:5]))
    check(not o["loose"], f"{name} at {PHONE} px: a wide table keeps its first column in view",
          "\n".join(o["loose"][:5]))
    label = f"{px:.1f} px" if px < 1e9 else "none (no picture)"
    print(f"# {name} at {PHONE}x{o['ih']}: {o['height'] / o['ih']:.1f} screens, smallest "
          f"text {f:g} px, smallest label {label}, {o['nwide']} tables wider "
          f"than the screen, {len(o['unboxed'])} of them without their own scroll box")
    if main:
        vb = o["verdict_bottom"]
        check(vb is not None and vb <= o["ih"], f"{name} at {PHONE} px: the first screen "
              "shows the verdict", f"verdict ends at {vb} px of {o['ih']}")
        first = [i for i in o["imgs"] if i[1] > 0]
        check(first and first[0][3] <= o["ih"], f"{name} at {PHONE} px: the first screen "
              "shows a whole figure", f"first image: {first[0] if first else None}")
    return o


def check_common(drv, name):
    check(not (d := width_problem(drv, WIDE)),
          f"{name} at {WIDE} px does not scroll sideways", d)
    n, d = tall_rows(drv)
    check(not d, f"{name}: every table row at {WIDE} px is at most {MAX_ROW_LINES} lines "
          f"tall ({n} tables)", d)
    n, d = image_problems(drv)
    check(not d, f"{name}: every image loads ({n} images)", d)
    check(not (d := width_problem(drv, PHONE)),
          f"{name} at {PHONE} px does not scroll sideways", d)
    check(not (d := console_errors(drv)), f"{name}: no error in the browser's console", d)


def check_page(drv, url):
    drv.get(url)  # returns after the load event: every image has loaded or failed
    set_width(drv, WIDE)
    h, ih = drv.execute_script("return [document.documentElement.scrollHeight, "
                               "window.innerHeight]")
    check(h <= MAX_SCREENS * ih, f"report.html at {WIDE}x{ih} is at most {MAX_SCREENS} "
          f"screens ({h / ih:.1f})")
    print(f"# report.html at {WIDE}x{ih}: {h / ih:.1f} screens")
    sec = drv.execute_script(FIRST_SECTION_JS) or {}
    check(sec.get("title") == "Summary", "the first section is the summary",
          f"first h2: {sec.get('title')!r}")
    check(sec.get("first_is_inside") and sec.get("first_tag") == "FIGURE",
          "the first table or figure of the page is a picture in the summary",
          f"first: {sec.get('first_tag')}, inside the summary: {sec.get('first_is_inside')}")
    check(sec.get("beside"), f"at {WIDE} px the summary's picture stands beside its text",
          f"figure: {sec.get('figure')}, top at {sec.get('figure_top')} px")
    check_common(drv, "report.html")
    o = check_phone(drv, "report.html", True)
    pages = sorted(set(o["links"]) - {"report.html"})
    check(len(pages) >= 4, f"report.html links its detail pages ({', '.join(pages)})")
    base = url.rsplit("/", 1)[0]
    for page in pages:
        drv.get(f"{base}/{page}")
        back = drv.execute_script("return !!document.querySelector('a[href=\"report.html\"]')")
        check(back, f"{page} links back to report.html")
        check_common(drv, page)
        check_phone(drv, page, False)


# A copy of the report with what the checks must catch: a missing image (which also logs an
# error), a script error, a wide block outside any scrolling box and a wall-of-text row.
DOCTORED = """<img src="plots/no-such-plot.svg" alt="missing">
<script>undefined_function_of_the_test();</script>
<div style="width:3000px">wide</div>
<p style="font-size:6px">tiny</p>
<table><tbody><tr><td>""" + "unboxed " * 300 + """</td></tr></tbody></table>
<table><tbody><tr><td style="white-space:normal;width:5em">""" + "word " * 200 + \
    """</td></tr></tbody></table>
"""


def check_doctored(drv, html):
    bad = os.path.join(os.path.dirname(html), "doctored.html")
    with open(html, encoding="utf-8") as f:
        text = f.read()
    with open(bad, "w", encoding="utf-8") as f:
        f.write(text.replace("</footer>", "</footer>\n" + DOCTORED, 1))
    drv.get("file://" + os.path.abspath(bad))
    check(bool(width_problem(drv, WIDE)), "the checks catch a doctored page: too wide")
    check(bool(image_problems(drv)[1]), "the checks catch a doctored page: a missing image")
    check(bool(tall_rows(drv)[1]), "the checks catch a doctored page: a tall row")
    check(bool(console_errors(drv)), "the checks catch a doctored page: console errors")
    o = phone_view(drv)
    check(o["minfont"][0] < MIN_FONT_PX, "the checks catch a doctored page: tiny text")
    check(bool(o["unboxed"]), "the checks catch a doctored page: a wide table in no box")


def main():
    chromium, driver_path = find_tools()
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "report")
        proc = start_report(out)
        try:
            drv = start(chromium, driver_path)
        except Exception:
            proc.kill()
            proc.wait()
            raise
        try:
            html = finish_report(proc, out)
            if os.path.exists(html):
                check_page(drv, "file://" + os.path.abspath(html))
                check_doctored(drv, html)
            else:
                check(False, "report.html written")
        finally:
            drv.quit()
    print(f"1..{n_tests}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
