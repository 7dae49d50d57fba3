#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The report in a real browser (TAP): `nodebw report` on a recorded results file, then
report.html opened in headless Chromium through chromedriver and Selenium. Fails when the
page is wider than the window (at 1400 and at 800 CSS pixels), when an image does not load,
when the browser logs an error, when the first section is not the summary or has no picture
beside its text, or when a table row is taller than a few lines; then shows that these
checks catch a doctored copy of the page. Skips (exit 77) only when chromium, chromedriver
or Selenium is missing."""
import os
import shutil
import subprocess
import sys
import tempfile

FIXTURE = os.environ.get("NODEBW_BROWSER_FIXTURE", "results-omp-host-2cpu-vm.json")
WIDE, NARROW, HEIGHT = 1400, 800, 900
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


def set_width(drv, width):
    """The viewport (window.innerWidth) at \\p width CSS pixels."""
    drv.set_window_size(width, HEIGHT)
    inner = drv.execute_script("return window.innerWidth")
    if inner != width:
        drv.set_window_size(width + (width - inner), HEIGHT)
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
const text = inside.find(e => e.tagName === 'UL' || e.tagName === 'P');
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


def check_page(drv, url):
    drv.get(url)  # returns after the load event: every image has loaded or failed
    check(not (d := width_problem(drv, WIDE)),
          f"at {WIDE} px the page does not scroll sideways", d)
    sec = drv.execute_script(FIRST_SECTION_JS) or {}
    check(sec.get("title") == "Summary", "the first section is the summary",
          f"first h2: {sec.get('title')!r}")
    check(sec.get("first_is_inside") and sec.get("first_tag") == "FIGURE",
          "the first table or figure of the page is a picture in the summary",
          f"first: {sec.get('first_tag')}, inside the summary: {sec.get('first_is_inside')}")
    check(sec.get("beside"), f"at {WIDE} px the summary's picture stands beside its text",
          f"figure: {sec.get('figure')}, top at {sec.get('figure_top')} px")
    n, d = tall_rows(drv)
    check(n and not d, f"every table row at {WIDE} px is at most {MAX_ROW_LINES} lines tall "
          f"({n} tables)", d)
    n, d = image_problems(drv)
    check(n and not d, f"every image loads ({n} images)", d)
    check(not (d := width_problem(drv, NARROW)),
          f"at {NARROW} px the page does not scroll sideways", d)
    check(not (d := console_errors(drv)), "no error in the browser's console", d)


# A copy of the report with what the checks must catch: a missing image (which also logs an
# error), a script error, a wide block outside any scrolling box and a wall-of-text row.
DOCTORED = """<img src="plots/no-such-plot.svg" alt="missing">
<script>undefined_function_of_the_test();</script>
<div style="width:3000px">wide</div>
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
