#!/usr/bin/env python3
"""Load HTML reports in headless Chromium and check them like a person would
see them: the page renders (visible text, its sections, non-blank pixels),
the console stays clean, and the browser makes no network request at all.
Talks the DevTools protocol over --remote-debugging-pipe (stdlib only).
Writes a full-page PNG screenshot and a PDF print of each page into OUTDIR,
and screenshots at 390 px and in the dark scheme (PAGE-390.png, PAGE-dark.png,
PAGE-390-dark.png).  At 390 px (a phone) and at 1400 px, light and dark: the
page has no horizontal scroll, the rank timeline shown (the SVG, or on a
narrow screen the vertical list that replaces it) does not scroll sideways
in its box either, no chart label is under 11 px and every text element has
WCAG AA contrast (4.5:1) against its background.

usage: browser_check.py CHROMIUM OUTDIR PAGE.html[:must-contain,...] ...
Prints one "ok"/"FAIL" line per page and ends with "N passed, N failed".
Exit status 0 when all pass."""
import base64
import json
import os
import re
import select
import struct
import subprocess
import sys
import tempfile
import time
import zlib


class Browser:
    def __init__(self, exe):
        self.r_ours, self.w_theirs = os.pipe()   # browser writes fd 4 -> we read
        self.r_theirs, self.w_ours = os.pipe()   # we write -> browser reads fd 3
        self.profile = tempfile.mkdtemp(prefix="nt-chrome-")
        args = [exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
                "--user-data-dir=" + self.profile, "--no-first-run", "--no-default-browser-check",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-extensions", "--disable-dev-shm-usage", "--hide-scrollbars", "about:blank"]

        def child():
            # move both ends out of the way first: either may already be 3 or 4
            r = os.dup(self.r_theirs)
            w = os.dup(self.w_theirs)
            os.dup2(r, 3)
            os.dup2(w, 4)
            os.set_inheritable(3, True)
            os.set_inheritable(4, True)

        # fds 3 and 4 must survive the close-fds step that runs after preexec_fn
        self.proc = subprocess.Popen(args, pass_fds=(3, 4), preexec_fn=child,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        # the child uses fds 3/4 (dup2 of these); pass_fds keeps the originals open there too
        os.close(self.r_theirs)
        os.close(self.w_theirs)
        self.buf = b""
        self.next_id = 0
        self.events = []

    def send(self, method, params=None, session=None):
        self.next_id += 1
        msg = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self.w_ours, json.dumps(msg).encode() + b"\0")
        return self.next_id

    def _read(self, timeout):
        r, _, _ = select.select([self.r_ours], [], [], timeout)
        if not r:
            return None
        chunk = os.read(self.r_ours, 1 << 20)
        if not chunk:
            raise RuntimeError("browser closed the pipe")
        self.buf += chunk
        return True

    def _messages(self):
        while b"\0" in self.buf:
            raw, self.buf = self.buf.split(b"\0", 1)
            yield json.loads(raw)

    def call(self, method, params=None, session=None, timeout=30):
        mid = self.send(method, params, session)
        end = time.time() + timeout
        while time.time() < end:
            for m in self._messages():
                if m.get("id") == mid:
                    if "error" in m:
                        raise RuntimeError("%s: %s" % (method, m["error"]))
                    return m.get("result", {})
                self.events.append(m)
            self._read(0.2)
        raise RuntimeError("timeout waiting for " + method)

    def wait_event(self, name, timeout=30):
        end = time.time() + timeout
        while time.time() < end:
            for i, e in enumerate(self.events):
                if e.get("method") == name:
                    return self.events.pop(i)
            for m in self._messages():
                self.events.append(m)
            self._read(0.2)
        raise RuntimeError("timeout waiting for " + name)

    def pump(self, seconds):
        end = time.time() + seconds
        while time.time() < end:
            for m in self._messages():
                self.events.append(m)
            self._read(0.1)

    def close(self):
        try:
            self.send("Browser.close")
            self.proc.wait(timeout=10)
        except Exception:
            self.proc.kill()
            self.proc.wait()
        subprocess.run(["rm", "-rf", self.profile])


def png_nonblank(png):
    """Fraction of pixels (sampled rows) that are not near-white: decodes the
    PNG's IDAT stream (8-bit RGB/RGBA, the filters undone)."""
    pos, idat, w, h, ctype = 8, b"", 0, 0, 6
    while pos < len(png):
        n, typ = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", data[:10])
        elif typ == b"IDAT":
            idat += data
        pos += 12 + n
    raw = zlib.decompress(idat)
    bpp = 4 if ctype == 6 else 3
    stride = w * bpp
    prev = bytearray(stride)
    dark = total = 0
    off = 0
    for y in range(h):
        f = raw[off]
        line = bytearray(raw[off + 1:off + 1 + stride])
        off += 1 + stride
        for x in range(stride):
            a = line[x - bpp] if x >= bpp else 0
            b = prev[x]
            c = prev[x - bpp] if x >= bpp else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        prev = line
        if y % 8 == 0:
            for x in range(0, w, 4):
                px = line[x * bpp:x * bpp + 3]
                total += 1
                if min(px) < 235:
                    dark += 1
    return dark / max(total, 1), w, h


PHONE_JS = r"""
(() => {
  const W = __WIDTH__;
  const doc = document.documentElement;
  let small = [];
  for (const t of document.querySelectorAll('svg text')) {
    const svg = t.ownerSVGElement, vb = svg.viewBox && svg.viewBox.baseVal;
    const scale = vb && vb.width ? svg.getBoundingClientRect().width / vb.width : 1;
    const px = parseFloat(getComputedStyle(t).fontSize) * scale;
    if (px < 10.95 && t.getBoundingClientRect().width > 0) small.push(px.toFixed(1) + 'px ' + t.textContent.slice(0, 30));
  }
  const lum = c => { const m = c.match(/[\d.]+/g).map(Number);
    const f = v => { v /= 255; return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4); };
    return [0.2126 * f(m[0]) + 0.7152 * f(m[1]) + 0.0722 * f(m[2]), m.length > 3 ? m[3] : 1]; };
  const bg = el => { for (; el; el = el.parentElement) { const c = getComputedStyle(el).backgroundColor;
    if (c && lum(c)[1] > 0.5) return c; } return 'rgb(255, 255, 255)'; };
  let low = [], n = 0;
  for (const el of document.querySelectorAll('body *')) {
    if (el.closest('svg') || !el.getClientRects().length) continue;
    let own = false;
    for (const c of el.childNodes) if (c.nodeType === 3 && c.textContent.trim()) own = true;
    if (!own || !/[\p{L}\p{N}]/u.test(el.textContent)) continue;  // a legend dot is no text
    n++;
    const a = lum(getComputedStyle(el).color)[0], b = lum(bg(el))[0];
    const r = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
    if (r < 4.5) low.push(r.toFixed(2) + ' ' + el.tagName.toLowerCase() + '.' + el.className + ' ' + el.textContent.trim().slice(0, 30));
  }
  let wide = [];
  for (const el of document.querySelectorAll('body *')) {
    const r = el.getBoundingClientRect();
    if (r.right > W + 1 && !(el.parentElement && el.parentElement.closest('.scroll,table,pre')) && r.width > 0) wide.push(el.tagName.toLowerCase() + '.' + el.className + ' ' + Math.round(r.right));
  }
  // the rank timeline is read without sideways scrolling: the one shown (the
  // SVG, or the narrow list that replaces it) fits its box and the page
  let tl = [], ntl = 0, vtl = 0;
  for (const el of document.querySelectorAll('svg[aria-label="rank timeline"], .tl-narrow')) {
    ntl++;
    if (!el.getClientRects().length || getComputedStyle(el).display === 'none') continue;
    vtl++;
    const box = el.closest('.scroll') || el, r = el.getBoundingClientRect();
    if (box.scrollWidth > box.clientWidth + 1 || r.right > W + 1)
      tl.push(el.tagName.toLowerCase() + '.' + el.getAttribute('class') + ' ' + Math.round(r.width) + ' px in a box of ' + box.clientWidth);
  }
  if (ntl && !vtl) tl.push('no timeline is shown');
  return JSON.stringify({sw: Math.max(doc.scrollWidth, document.body.scrollWidth), W, small: small.slice(0, 5), nsmall: small.length, tl,
                         low: low.slice(0, 8), nlow: low.length, ntext: n, wide: wide.slice(0, 5),
                         bg: getComputedStyle(document.body).backgroundColor});
})()
"""


def narrow_and_contrast(br, sid, base):
    problems = []
    for scheme in ("light", "dark"):
        br.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": scheme}]}, session=sid)
        for width in (1400, 390):
            br.call("Emulation.setDeviceMetricsOverride",
                    {"width": width, "height": 900, "deviceScaleFactor": 1, "mobile": width < 500}, session=sid)
            br.pump(0.2)
            r = json.loads(br.call("Runtime.evaluate", {"returnByValue": True, "expression": PHONE_JS.replace("__WIDTH__", str(width))},
                                   session=sid)["result"]["value"])
            where = "%s %dpx" % (scheme, width)
            if r["sw"] > width + 1:
                problems.append("%s: the page is %d px wide (horizontal scroll): %s" % (where, r["sw"], r["wide"]))
            if r["tl"]:
                problems.append("%s: the rank timeline is not readable without sideways scrolling: %s" % (where, r["tl"]))
            if r["nsmall"]:
                problems.append("%s: %d chart labels under 11 px: %s" % (where, r["nsmall"], r["small"]))
            if r["nlow"]:
                problems.append("%s: %d of %d text elements under 4.5:1 contrast: %s" % (where, r["nlow"], r["ntext"], r["low"]))
            if scheme == "dark" and width == 1400 and sum(map(float, re.findall(r"[\d.]+", r["bg"])[:3])) > 3 * 80:
                problems.append("dark: the page background is not dark: %s" % r["bg"])
            if width == 390:
                h = min(max(json.loads(br.call("Runtime.evaluate", {"returnByValue": True, "expression":
                        "JSON.stringify(document.documentElement.scrollHeight)"}, session=sid)["result"]["value"]), 900), 12000)
                br.call("Emulation.setDeviceMetricsOverride",
                        {"width": 390, "height": h, "deviceScaleFactor": 1, "mobile": True}, session=sid)
                shot = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=sid)
                with open("%s-390%s.png" % (base, "-dark" if scheme == "dark" else ""), "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
                if os.environ.get("NT_SHOT_TILES"):
                    for k in range(0, (h + 899) // 900):
                        tile = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                                       "clip": {"x": 0, "y": k * 900, "width": 390,
                                                "height": min(900, h - k * 900), "scale": 1}}, session=sid)
                        with open("%s-390%s-%d.png" % (base, "-dark" if scheme == "dark" else "", k), "wb") as f:
                            f.write(base64.b64decode(tile["data"]))
            elif scheme == "dark":
                shot = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=sid)
                with open("%s-dark.png" % base, "wb") as f:
                    f.write(base64.b64decode(shot["data"]))
    br.call("Emulation.setEmulatedMedia", {"features": [{"name": "prefers-color-scheme", "value": "light"}]}, session=sid)
    return problems


def check_page(br, path, must, outdir):
    url = "file://" + os.path.abspath(path)
    t = br.call("Target.createTarget", {"url": "about:blank"})
    sid = br.call("Target.attachToTarget", {"targetId": t["targetId"], "flatten": True})["sessionId"]
    for dom in ("Page", "Runtime", "Log", "Network"):
        br.call(dom + ".enable", session=sid)
    br.call("Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": 900, "deviceScaleFactor": 1, "mobile": False}, session=sid)
    br.events.clear()
    br.call("Page.navigate", {"url": url}, session=sid)
    br.wait_event("Page.loadEventFired")
    br.pump(0.5)
    problems = []
    for e in br.events:
        m, p = e.get("method"), e.get("params", {})
        if m == "Network.requestWillBeSent":
            u = p.get("request", {}).get("url", "")
            if u != url and not u.startswith("data:"):
                problems.append("network request: " + u)
        elif m == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
            problems.append("console %s: %s" % (p.get("type"), [a.get("value") for a in p.get("args", [])]))
        elif m == "Runtime.exceptionThrown":
            problems.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
        elif m == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
            problems.append("log %s: %s" % (p["entry"]["level"], p["entry"].get("text")))
    ev = br.call("Runtime.evaluate", {"returnByValue": True, "expression":
                 "JSON.stringify({text: document.body ? document.body.innerText : '',"
                 " svgs: document.querySelectorAll('svg').length,"
                 " scripts: document.scripts.length,"
                 " h: document.documentElement.scrollHeight,"
                 " title: document.title})"}, session=sid)
    info = json.loads(ev["result"]["value"])
    if len(info["text"].strip()) < 200:
        problems.append("blank page: %d characters of text" % len(info["text"].strip()))
    if info["scripts"]:
        problems.append("%d script elements" % info["scripts"])
    for word in must:
        if word and word not in info["text"]:
            problems.append("missing text: %r" % word)
    height = min(max(info["h"], 900), 12000)
    br.call("Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=sid)
    shot = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True}, session=sid)
    png = base64.b64decode(shot["data"])
    base = os.path.join(outdir, os.path.splitext(os.path.basename(path))[0])
    with open(base + ".png", "wb") as f:
        f.write(png)
    if os.environ.get("NT_SHOT_TILES"):
        # viewport-sized pieces, for a person to read at full size
        for k in range(0, (height + 999) // 1000):
            tile = br.call("Page.captureScreenshot", {"format": "png", "captureBeyondViewport": True,
                           "clip": {"x": 0, "y": k * 1000, "width": 1400,
                                    "height": min(1000, height - k * 1000), "scale": 1}}, session=sid)
            with open("%s-%d.png" % (base, k), "wb") as f:
                f.write(base64.b64decode(tile["data"]))
    frac, w, h = png_nonblank(png)
    if frac < 0.01:
        problems.append("screenshot is blank (%.3f%% non-white)" % (frac * 100))
    # a phone (issue 17): 390 px wide, no page-level horizontal scroll, chart
    # text never under 11 px, text contrast WCAG AA (4.5:1), light and dark
    problems += narrow_and_contrast(br, sid, base)
    br.call("Emulation.setDeviceMetricsOverride",
            {"width": 1400, "height": height, "deviceScaleFactor": 1, "mobile": False}, session=sid)
    # printing a long page on a loaded machine takes a while
    pdf = br.call("Page.printToPDF", {"printBackground": True, "preferCSSPageSize": False}, session=sid, timeout=300)
    data = base64.b64decode(pdf["data"])
    with open(base + ".pdf", "wb") as f:
        f.write(data)
    if not data.startswith(b"%PDF") or len(data) < 2000:
        problems.append("print to PDF failed")
    br.pump(0.3)
    for e in br.events:
        if e.get("method") == "Network.requestWillBeSent":
            u = e["params"].get("request", {}).get("url", "")
            if u != url and not u.startswith("data:") and ("network request: " + u) not in problems:
                problems.append("network request: " + u)
    br.call("Target.closeTarget", {"targetId": t["targetId"]})
    return problems, info, (w, h, frac)


def main():
    exe, outdir, pages = sys.argv[1], sys.argv[2], sys.argv[3:]
    os.makedirs(outdir, exist_ok=True)
    br = Browser(exe)
    npass = nfail = 0
    try:
        br.call("Target.setDiscoverTargets", {"discover": False})
        for spec in pages:
            path, _, must = spec.partition(":")
            try:
                problems, info, (w, h, frac) = check_page(br, path, must.split(",") if must else [], outdir)
            except Exception as ex:  # a broken page must not stop the others
                problems, info, w, h, frac = ["check failed: %s" % ex], {"text": "", "svgs": 0}, 0, 0, 0
            if problems:
                nfail += 1
                print("FAIL %s" % path)
                for p in problems:
                    print("     " + p)
            else:
                npass += 1
                print("ok   %s (%d chars, %d svg, %dx%d screenshot, %.0f%% ink)" %
                      (path, len(info["text"]), info["svgs"], w, h, frac * 100))
    finally:
        br.close()
    print("%d passed, %d failed" % (npass, nfail))
    return 1 if nfail else 0


if __name__ == "__main__":
    sys.exit(main())
