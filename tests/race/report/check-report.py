#!/usr/bin/env python3
"""Helpers of test-report.sh (python3 standard library only).

  check-report.py page TEMPLATE FIXTURE.json OUT.html
      substitutes the fixture into the template the way `svctrace html` does ("<" escaped).
  check-report.py static PAGE.html
      the page loads nothing from the network: no src/href/url()/@import/fetch to anything.
  check-report.py dom PAGE.html DOM.html [--exact-fixture]
      checks the DOM that `chromium --dump-dom` rendered from PAGE.html against the page's own
      DATA: body[data-rendered=ok], svg#timeline, one g.lane per (pid, tid) with its label,
      one .event per event, .flow-link between consecutive focus events, rect#race-window iff
      there is a window, #verdict with the FMRI and the window length in ms, table#events with
      one row per focus event.  --exact-fixture adds the exact lane labels of fixture.json.
  check-report.py synth FIXTURE.json OUT.json N
      the fixture with other instances' events added up to N events in all.
  check-report.py interact PAGE.html OUT.html / interacted PAGE.html DOM.html
      a copy of the page that presses the view buttons and turns the wheel, and the check that
      each step changed the view (the Race window view is 1.5 windows wide).
  check-report.py nodata DOM.html
      the template rendered with DATA null: rendered ok and says "No data".
  check-report.py png FILE.png WIDTH HEIGHT
      the screenshot has that size and is not blank (many colours, no colour > 97 %).
"""
import json
import re
import struct
import sys
import zlib
from html.parser import HTMLParser

MARKER = "/*SVCTRACE_DATA*/null"
VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source",
        "track", "wbr"}


def fail(msg):
    print("FAIL: " + msg)
    sys.exit(1)


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent = tag, dict(attrs), parent
        self.children, self.content = [], []   # content: text and children in document order

    def classes(self):
        return (self.attrs.get("class") or "").split()

    def all_text(self):
        return "".join(c if isinstance(c, str) else c.all_text() for c in self.content)

    def walk(self):
        yield self
        for c in self.children:
            yield from c.walk()


class TreeBuilder(HTMLParser):
    """A small DOM from Chromium's serialization (every non-void element has its end tag)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.root = Node("#root", {}, None)
        self.cur = self.root

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.content.append(n)
        if tag not in VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        self.cur.content.append(n)

    def handle_endtag(self, tag):
        n = self.cur
        while n is not None and n.tag != tag:
            n = n.parent
        if n is not None and n.parent is not None:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.content.append(data)


def parse_dom(path):
    b = TreeBuilder()
    b.feed(open(path, encoding="utf-8", errors="replace").read())
    b.close()
    return b.root


def page_data(page):
    text = open(page, encoding="utf-8").read()
    i = text.find("const DATA = ")
    if i < 0:
        fail(page + ": no 'const DATA = ' in the page")
    data, _ = json.JSONDecoder().raw_decode(text, i + len("const DATA = "))
    return data


def cmd_page(template, fixture, out):
    t = open(template, encoding="utf-8").read()
    if t.count(MARKER) != 1:
        fail("%s: the data marker occurs %d times, not once" % (template, t.count(MARKER)))
    data = json.load(open(fixture, encoding="utf-8"))
    js = json.dumps(data, separators=(",", ":")).replace("<", "\\u003c")
    open(out, "w", encoding="utf-8").write(t.replace(MARKER, js))


# Appended to a page by `interact`: presses the view buttons and turns the wheel, noting the
# view after each step, since --dump-dom cannot click.
INTERACT = """<script>
(function () {
  const out = [], info = () => document.getElementById("viewinfo").textContent;
  const cx = () => document.querySelector("circle.event.focus").getAttribute("cx");
  out.push(info() + " @" + cx());
  document.getElementById("view-all").click(); out.push(info() + " @" + cx());
  document.getElementById("view-window").click(); out.push(info() + " @" + cx());
  const svg = document.getElementById("timeline"), r = svg.getBoundingClientRect();
  svg.dispatchEvent(new WheelEvent("wheel", {deltaY: 400, clientX: r.left + r.width / 2,
                                             clientY: r.top + 60, bubbles: true, cancelable: true}));
  out.push(info() + " @" + cx());
  document.body.setAttribute("data-interact", out.join("|"));
})();
</script>"""


def cmd_interact(page, out):
    t = open(page, encoding="utf-8").read()
    i = t.rindex("</body>")
    open(out, "w", encoding="utf-8").write(t[:i] + INTERACT + t[i:])


def cmd_interacted(page, dom):
    """The views the buttons and the wheel gave: all different; the window view ~1.5 windows."""
    data = page_data(page)
    body = [n for n in parse_dom(dom).walk() if n.tag == "body"]
    steps = body[0].attrs.get("data-interact", "").split("|") if body else []
    if len(steps) != 4 or len(set(steps)) != 4:
        fail("view after load, All, Race window, wheel: %r (want 4 different views)" % steps)
    widths = [float(re.search(r"\(([-\d.]+) ms wide\)", x).group(1)) for x in steps]
    w = data["focus"]["window_us"] / 1000.0
    if not abs(widths[2] - 1.5 * w) < 0.01 * w + 0.002:
        fail("the Race window view is %.3f ms wide, want 1.5 x %.3f ms" % (widths[2], w))
    if not widths[3] > widths[2]:
        fail("the wheel (down) did not zoom out: %.3f -> %.3f ms" % (widths[2], widths[3]))
    print("ok: views %s ms wide (load, All, Race window, wheel)" % widths)


def cmd_static(page):
    t = open(page, encoding="utf-8").read()
    bad = []
    for m in re.finditer(r"""\b(src|href|action|srcset|poster)\s*=\s*["']?([^"'\s>]*)""", t, re.I):
        bad.append(m.group(0))
    for pat in (r"url\(\s*['\"]?(?!#)", r"@import", r"\bfetch\s*\(", r"XMLHttpRequest", r"new\s+WebSocket",
                r"\bimport\s*\(", r"<link\b", r"<iframe\b", r"<img\b", r"<object\b"):
        for m in re.finditer(pat, t, re.I):
            bad.append(t[m.start():m.start() + 60])
    for m in re.finditer(r"https?://[^\s\"'<>)]*", t):
        if not m.group(0).startswith("http://www.w3.org/"):   # the SVG namespace only
            bad.append(m.group(0))
    if bad:
        fail("%s refers to outside resources: %s" % (page, "; ".join(bad[:5])))


def lane_labels(data):
    """The labels the page must give its lanes, in its order (fixture check)."""
    prog = {p["pid"]: p["prog"] for p in data.get("processes", [])}
    order = ["svccfg", "svc.configd", "svc.startd", "svcadm"]
    keys = sorted({(e["pid"], e["tid"]) for e in data["events"]},
                  key=lambda k: (order.index(prog[k[0]]) if prog[k[0]] in order else 4, prog[k[0]], k[0], k[1]))
    nthreads = {}
    for pid, _ in keys:
        nthreads[pid] = nthreads.get(pid, 0) + 1
    return ["%s [%d]%s" % (prog[p], p, " %d" % t if nthreads[p] > 1 or prog[p] == "svc.startd" else "")
            for p, t in keys]


def cmd_dom(page, dom, exact):
    data = page_data(page)
    if not isinstance(data, dict):
        fail("the page's DATA is not an object")
    root = parse_dom(dom)
    nodes = list(root.walk())
    body = [n for n in nodes if n.tag == "body"]
    if not body or body[0].attrs.get("data-rendered") != "ok":
        err = [n for n in nodes if n.attrs.get("id") == "error"]
        fail("the page did not render: data-rendered=%r %s" % (
            body[0].attrs.get("data-rendered") if body else None, err[0].all_text() if err else ""))
    svgs = [n for n in nodes if n.tag == "svg" and n.attrs.get("id") == "timeline"]
    if len(svgs) != 1:
        fail("svg#timeline: %d found" % len(svgs))
    svg = svgs[0]
    events = data.get("events") or []
    focus = data.get("focus") or {}

    def zero(f):
        return f is None or re.match(r"^(0x)?0*$", str(f)) is not None

    def of_flow(e):
        if isinstance(e.get("focus"), bool):
            return e["focus"]
        return e.get("flow") == focus.get("flow") and not zero(e.get("flow"))

    # the page's chain: the flow's events, plus the flowless import.* events of each svccfg
    # that committed the focus instance, from its import.begin to its import.return
    chain = set()
    for pid in {e["pid"] for e in events if e["name"] == "import.instance_committed" and of_flow(e)}:
        ts = [e["t"] for e in events if e["pid"] == pid and e["name"] == "import.instance_committed" and of_flow(e)]
        mine = [i for i, e in enumerate(events)
                if e["pid"] == pid and zero(e.get("flow")) and e["name"].startswith("import.")]
        begins = [events[i]["t"] for i in mine if events[i]["name"] == "import.begin" and events[i]["t"] <= min(ts)]
        rets = [events[i]["t"] for i in mine if events[i]["name"] == "import.return" and events[i]["t"] >= max(ts)]
        lo, hi = max(begins, default=min(ts)), min(rets, default=max(ts))
        chain |= {i for i in mine if lo <= events[i]["t"] <= hi}
    nfocus = sum(1 for i, e in enumerate(events) if of_flow(e) or i in chain)
    lanes = [n for n in svg.walk() if n.tag == "g" and "lane" in n.classes()]
    want_lanes = len({(e["pid"], e["tid"]) for e in events})
    if len(lanes) != want_lanes:
        fail("g.lane: %d, want %d (one per pid/tid)" % (len(lanes), want_lanes))
    labels = []
    for g in lanes:
        t = [n for n in g.walk() if "lname" in n.classes()]
        labels.append(t[0].all_text().strip() if t else "")
    for lab in labels:
        if not re.match(r"^\S+ \[\d+\]( \d+)?$", lab):
            fail("lane label %r is not 'prog [pid]' or 'prog [pid] tid'" % lab)
    if exact:
        want = lane_labels(data)
        if labels != want:
            fail("lane labels %r, want %r" % (labels, want))
    markers = [n for n in svg.walk() if "event" in n.classes()]
    if len(markers) != len(events):
        fail(".event markers: %d, want %d" % (len(markers), len(events)))
    for g in lanes:
        pid, tid = int(g.attrs.get("data-pid", -1)), int(g.attrs.get("data-tid", -1))
        n_in = sum(1 for n in g.walk() if "event" in n.classes())
        want = sum(1 for e in events if e["pid"] == pid and e["tid"] == tid)
        if n_in != want:
            fail("lane %s [%d] %d holds %d markers, want %d" % (g.attrs.get("data-prog"), pid, tid, n_in, want))
    titled = sum(1 for n in markers if any(c.tag == "title" and c.all_text().strip() for c in n.children))
    if titled != len(markers):
        fail("%d of %d markers have a <title> tooltip" % (titled, len(markers)))
    emph = sum(1 for n in markers if "focus" in n.classes())
    if emph != nfocus:
        fail(".event.focus: %d, want the %d focus-flow events" % (emph, nfocus))
    links = [n for n in svg.walk() if "flow-link" in n.classes()]
    if len(links) != max(0, nfocus - 1):
        fail(".flow-link: %d, want %d" % (len(links), max(0, nfocus - 1)))
    win = [n for n in svg.walk() if n.attrs.get("id") == "race-window"]
    has_window = focus.get("window_us") is not None
    if len(win) != (1 if has_window else 0):
        fail("rect#race-window: %d found, window_us=%r" % (len(win), focus.get("window_us")))
    if win and not float(win[0].attrs.get("width", "0")) > 0:
        fail("rect#race-window has no width")
    ticks = [n for n in svg.walk() if n.tag == "text" and re.search(r"\d ms$", n.all_text())]
    if len(ticks) < 3:
        fail("time axis: %d tick labels in ms" % len(ticks))
    verdict = [n for n in nodes if n.attrs.get("id") == "verdict"]
    if len(verdict) != 1:
        fail("#verdict: %d found" % len(verdict))
    vtext = " ".join(verdict[0].all_text().split())
    if focus.get("fmri") and focus["fmri"] not in vtext:
        fail("#verdict %r lacks the FMRI %s" % (vtext, focus["fmri"]))
    kind = focus.get("kind", "none")
    if {"manifested": "manifested", "latent": "latent", "none": "no race"}.get(kind, kind) not in vtext.lower():
        fail("#verdict %r does not say %s" % (vtext, kind))
    if has_window:
        m = re.search(r"window (\d+\.\d+) ms", vtext)
        if not m or abs(float(m.group(1)) - focus["window_us"] / 1000.0) > 0.0006:
            fail("#verdict %r lacks the window length %.4f ms" % (vtext, focus["window_us"] / 1000.0))
    tables = [n for n in nodes if n.tag == "table" and n.attrs.get("id") == "events"]
    if len(tables) != 1:
        fail("table#events: %d found" % len(tables))
    rows = [n for n in tables[0].walk() if n.tag == "tr" and "event-row" in n.classes()]
    if len(rows) != nfocus:
        fail("table#events: %d rows, want %d focus events" % (len(rows), nfocus))
    if exact:   # fixture.json: numbers worked out by hand, not by the rule above
        cells = [[c.all_text().strip() for c in r.children if c.tag == "td"] for r in rows]
        names = [c[4] for c in cells]
        if (len(markers), emph, len(rows)) != (31, 18, 18):
            fail("fixture: %d markers, %d focus, %d rows; want 31, 18, 18" % (len(markers), emph, len(rows)))
        if names[:2] != ["import.begin", "configd.commit"] or names[7] != "import.return" \
                or cells[12][5] != "absent" or "2.417 ms" not in vtext:
            fail("fixture: table rows %r, verdict %r" % (names, vtext))
    fl = [n for n in nodes if n.attrs.get("id") == "findings"]
    nf = len(data.get("findings") or [])
    items = [n for n in fl[0].walk() if n.tag == "li" and "finding" in n.classes()] if fl else []
    if len(items) != min(nf, 500):
        fail("#findings: %d items, want %d" % (len(items), min(nf, 500)))
    print("ok: %d lanes %s, %d markers (%d focus), %d flow links, window %s, verdict %r" % (
        len(lanes), labels if len(labels) <= 8 else labels[:8] + ["..."], len(markers), emph, len(links),
        "yes" if win else "no", vtext[:90]))


def cmd_nodata(dom):
    nodes = list(parse_dom(dom).walk())
    body = [n for n in nodes if n.tag == "body"]
    if not body or body[0].attrs.get("data-rendered") != "ok":
        fail("the template with DATA null did not render cleanly")
    verdict = [n for n in nodes if n.attrs.get("id") == "verdict"]
    if not verdict or "No data" not in verdict[0].all_text():
        fail("the template with DATA null does not say 'No data'")
    if not any(n.tag == "svg" and n.attrs.get("id") == "timeline" for n in nodes):
        fail("the template with DATA null has no svg#timeline")
    if any("event" in n.classes() for n in nodes):
        fail("the template with DATA null draws event markers")
    print("ok: DATA null renders 'No data'")


def cmd_synth(fixture, out, total):
    """fixture.json plus events of other instances up to `total` events (the page's upper size)."""
    data = json.load(open(fixture, encoding="utf-8"))
    ev = data["events"]
    procs = [(812, 812), (815, 815), (815, 817)]
    names = ["configd.commit", "configd.notify_sent", "startd.notify_received", "startd.graph_insert",
             "startd.restarter_dequeue", "startd.state_change"]
    i = 0
    while len(ev) < total:
        k = i // len(names)
        fmri = "svc:/stress/w%di%d:default" % (3 + k % 8, k // 8)
        pid, tid = procs[i % len(procs)]
        ev.append({"t": (i * 2711) % 6000000, "pid": pid, "tid": tid, "name": names[i % len(names)],
                   "flow": "%016x" % (0x1000 + k), "fmri": fmri, "str": fmri + "/:properties/general",
                   "focus": False})
        i += 1
    ev.sort(key=lambda e: e["t"])
    json.dump(data, open(out, "w", encoding="utf-8"))


def png_pixels(path):
    raw = open(path, "rb").read()
    if raw[:8] != b"\x89PNG\r\n\x1a\n":
        fail(path + " is not a PNG")
    pos, idat, ihdr = 8, [], None
    while pos < len(raw):
        n, typ = struct.unpack(">I4s", raw[pos:pos + 8])
        body = raw[pos + 8:pos + 8 + n]
        if typ == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif typ == b"IDAT":
            idat.append(body)
        elif typ == b"IEND":
            break
        pos += 12 + n
    w, h, depth, ctype, _, _, interlace = ihdr
    if depth != 8 or ctype not in (2, 6) or interlace:
        fail("%s: unexpected PNG format depth=%d colour type=%d interlace=%d" % (path, depth, ctype, interlace))
    bpp = 3 if ctype == 2 else 4
    data = zlib.decompress(b"".join(idat))
    stride = w * bpp
    prev = bytearray(stride)
    rows = []
    for y in range(h):
        f = data[y * (stride + 1)]
        cur = bytearray(data[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        if f == 1:
            for i in range(bpp, stride):
                cur[i] = (cur[i] + cur[i - bpp]) & 255
        elif f == 2:
            cur = bytearray((a + b) & 255 for a, b in zip(cur, prev))
        elif f == 3:
            for i in range(stride):
                left = cur[i - bpp] if i >= bpp else 0
                cur[i] = (cur[i] + ((left + prev[i]) >> 1)) & 255
        elif f == 4:
            for i in range(stride):
                a = cur[i - bpp] if i >= bpp else 0
                b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                cur[i] = (cur[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(cur))
        prev = cur
    return w, h, bpp, rows


def cmd_png(path, width, height):
    w, h, bpp, rows = png_pixels(path)
    if (w, h) != (width, height):
        fail("%s is %dx%d, want %dx%d" % (path, w, h, width, height))
    counts = {}
    for r in rows:
        for i in range(0, len(r), bpp):
            px = r[i:i + 3]
            counts[px] = counts.get(px, 0) + 1
    top = max(counts.values())
    if len(counts) < 16:
        fail("%s looks blank: %d distinct colours" % (path, len(counts)))
    if top > 0.97 * w * h:
        fail("%s looks blank: one colour covers %.1f %% of it" % (path, 100.0 * top / (w * h)))
    print("ok: %s %dx%d, %d distinct colours, the commonest covers %.1f %%" % (
        path, w, h, len(counts), 100.0 * top / (w * h)))


def main(argv):
    if len(argv) >= 2:
        cmd, args = argv[1], argv[2:]
        if cmd == "page" and len(args) == 3:
            return cmd_page(*args)
        if cmd == "static" and len(args) == 1:
            return cmd_static(*args)
        if cmd == "dom" and len(args) in (2, 3):
            return cmd_dom(args[0], args[1], args[2:] == ["--exact-fixture"])
        if cmd == "synth" and len(args) == 3:
            return cmd_synth(args[0], args[1], int(args[2]))
        if cmd == "interact" and len(args) == 2:
            return cmd_interact(*args)
        if cmd == "interacted" and len(args) == 2:
            return cmd_interacted(*args)
        if cmd == "nodata" and len(args) == 1:
            return cmd_nodata(*args)
        if cmd == "png" and len(args) == 3:
            return cmd_png(args[0], int(args[1]), int(args[2]))
    print(__doc__)
    sys.exit(2)


if __name__ == "__main__":
    main(sys.argv)
