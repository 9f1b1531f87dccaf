#!/usr/bin/python3
"""Drives the card studio (/studio) in headless Chromium, as a customer would.

Run by Tests/CardServiceTests/StudioBrowserTests.swift (and benchmarks/studio.sh) with
Debian's python3-selenium and chromium-driver:

    studio_driver.py SCENARIO BASE_URL KEY PHOTO OUT_DIR [ARGS...]

It uses only the page's contract (docs/studio.md): /studio#key=KEY, the data-testid
elements, window.studio.spec() and .card(). Gestures are real input events through the
DevTools protocol: a mouse drag, the wheel, and two-finger touches (pinch, turn). It writes
OUT_DIR/result.json (what the page reported) and a screenshot per step (NN-step.png), and
exits non-zero, with the reason on stderr, when the page does not do what a step expects.
Waits poll the page's own state with a deadline (no fixed sleeps).

The phone scenarios (layout, heic, recipients, audit) run at a viewport given as WIDTHxHEIGHT
(device scale factor 1, touch emulated; below 900 px wide as a mobile device):

    studio_driver.py layout BASE_URL KEY PHOTO OUT_DIR 390x844
    studio_driver.py heic BASE_URL KEY HEIC_PHOTO OUT_DIR 390x844
    studio_driver.py recipients BASE_URL KEY PHOTO OUT_DIR 390x844
    studio_driver.py audit BASE_URL KEY PHOTO OUT_DIR 390x844 AXE_MIN_JS
"""
import base64
import glob
import json
import math
import os
import re
import struct
import sys
import time
import zlib

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait


class StepFailed(Exception):
    pass


class Studio:
    def __init__(self, base, key, out, size=None):
        self.base, self.key, self.out = base, key, out
        self.step = 0
        self.result = {"steps": []}
        options = webdriver.ChromeOptions()
        options.binary_location = "/usr/bin/chromium"
        for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1280,1400",
                         "--force-device-scale-factor=1", "--disable-dev-shm-usage",
                         f"--user-data-dir={out}/profile"):
            options.add_argument(argument)
        options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
        self.driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
        self.driver.set_script_timeout(60)
        self.cdp("Emulation.setTouchEmulationEnabled", enabled=True, maxTouchPoints=5)
        self.size = None
        if size:
            width, height = (int(part) for part in size.lower().split("x"))
            self.size = (width, height)
            self.cdp("Emulation.setDeviceMetricsOverride", width=width, height=height, deviceScaleFactor=1,
                     mobile=width < 900)

    # ---- plumbing -------------------------------------------------------------------------

    def cdp(self, command, **parameters):
        return self.driver.execute_cdp_cmd(command, parameters)

    def js(self, script, *arguments):
        return self.driver.execute_script(script, *arguments)

    def by_test_id(self, name):
        return self.driver.find_element(By.CSS_SELECTOR, f'[data-testid="{name}"]')

    def wait(self, what, condition, seconds=90):
        try:
            return WebDriverWait(self.driver, seconds, poll_frequency=0.05).until(lambda _: condition())
        except Exception as error:
            raise StepFailed(f"{what}: not reached in {seconds} s ({type(error).__name__})") from None

    def settled(self, what):
        self.wait(f"{what}: the preview of the current spec on screen",
                  lambda: self.js("return !!(window.studio && window.studio.settled())"))

    def shot(self, name):
        self.step += 1
        path = os.path.join(self.out, f"{self.step:02d}-{name}.png")
        self.driver.save_screenshot(path)
        self.result["steps"].append({"name": name, "screenshot": path, "spec": self.spec()})

    def spec(self):
        return self.js("return window.studio ? window.studio.spec() : null")

    def expect(self, condition, message):
        if not condition:
            raise StepFailed(message)

    def stage_box(self):
        self.js("document.querySelector('[data-testid=stage]').scrollIntoView({block: 'center'})")
        return self.js("const b = document.querySelector('[data-testid=stage]').getBoundingClientRect();"
                       "return {x: b.left, y: b.top, width: b.width, height: b.height};")

    # ---- input ----------------------------------------------------------------------------

    def mouse(self, kind, x, y, buttons=0, **extra):
        pressing = kind in ("mousePressed", "mouseReleased")
        self.cdp("Input.dispatchMouseEvent", type=kind, x=x, y=y, button="left" if pressing or buttons else "none",
                 buttons=buttons, clickCount=1 if pressing else 0, **extra)

    def drag(self, dx, dy, steps=8):
        box = self.stage_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        self.mouse("mouseMoved", x, y)
        self.mouse("mousePressed", x, y, buttons=1)
        for index in range(1, steps + 1):
            self.mouse("mouseMoved", x + dx * index / steps, y + dy * index / steps, buttons=1)
        self.mouse("mouseReleased", x + dx, y + dy)
        return box

    def wheel(self, delta_y, times=1):
        box = self.stage_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        for _ in range(times):
            self.cdp("Input.dispatchMouseEvent", type="mouseWheel", x=x, y=y, deltaX=0, deltaY=delta_y)

    def touches(self, kind, points):
        self.cdp("Input.dispatchTouchEvent", type=kind,
                 touchPoints=[{"x": x, "y": y, "id": index, "radiusX": 1, "radiusY": 1, "force": 1}
                              for index, (x, y) in enumerate(points)])

    def two_fingers(self, start_distance, end_distance, start_angle, end_angle, steps=10):
        """Two touches about the stage's centre: the distance between them and their angle
        (degrees, clockwise on screen) go from the start values to the end values."""
        box = self.stage_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2

        def points(distance, angle):
            radians = math.radians(angle)
            dx, dy = math.cos(radians) * distance / 2, math.sin(radians) * distance / 2
            return [(cx - dx, cy - dy), (cx + dx, cy + dy)]

        self.touches("touchStart", points(start_distance, start_angle))
        for index in range(1, steps + 1):
            fraction = index / steps
            self.touches("touchMove", points(start_distance + (end_distance - start_distance) * fraction,
                                             start_angle + (end_angle - start_angle) * fraction))
        self.touches("touchEnd", [])

    def insert_text(self, text):
        """Types text the way an input method does (ChromeDriver's send_keys cannot type
        characters outside the BMP, such as emoji)."""
        self.cdp("Input.insertText", text=text)

    # ---- steps ----------------------------------------------------------------------------

    def open(self):
        self.driver.get(f"{self.base}/studio#key={self.key}")
        self.wait("the studio signs in", lambda: self.js(
            "return !document.getElementById('studio').hidden && document.querySelectorAll('input[name=frame]').length > 1"))
        self.expect("key=" not in self.driver.current_url, "the key stays in the address bar")
        self.expect(self.js("return sessionStorage.getItem('cardrender.studio.key')") == self.key,
                    "the key is not kept in the tab's session storage")
        if self.size:
            self.result["viewport"] = self.js("return [window.innerWidth, window.innerHeight]")
            self.expect(self.result["viewport"] == list(self.size), f"the viewport is {self.result['viewport']}")

    def upload(self, photo):
        self.by_test_id("photo-input").send_keys(photo)
        self.wait("the photo is uploaded and placed", lambda: self.js("return !!window.studio.placement()"))
        self.settled("upload")
        self.result["placement"] = self.js("return window.studio.placement()")
        # The moving copy is the upright photo (the browser applies EXIF orientation), reduced.
        self.wait("the moving copy of the photo", lambda: self.js("return window.studio.liveCopy() !== null"), seconds=60)
        self.result["live_copy"] = self.js("const c = window.studio.liveCopy(); return [c.width, c.height]")
        self.result["first_spec"] = self.spec()
        self.shot("uploaded")

    def order(self, press_key=False, press=None):
        if press_key:
            button = self.by_test_id("order")
            self.expect(self.js("return document.activeElement === arguments[0]", button),
                        "the order button is not reached with Tab")
            press()
        else:
            self.by_test_id("order").click()
        self.wait("the card is ready", lambda: self.by_test_id("status").text == "ready", seconds=180)
        self.wait("the final sample is shown", lambda: self.js(
            "const f = document.getElementById('final'); return !f.hidden && f.complete && f.naturalWidth > 0"))
        self.result["card"] = self.js("return window.studio.card()")
        self.result["ordered_spec"] = self.spec()
        self.result["preview_digest"] = self.js("return window.studio.previewDigest()")
        self.js("document.getElementById('final').scrollIntoView({block: 'end'})")
        self.shot("ready")

    # ---- the phone: layout, targets, what is on screen -------------------------------------

    def no_overflow(self, what):
        """Nothing wider than the viewport: the document's scroll width, and every rendered
        element's visible box (clipped by its scrolling or clipping ancestors) within it."""
        # Against the width asked for, not the page's own idea of it: a mobile viewport widens
        # its layout to fit what overflows, and innerWidth would grow with it.
        width = self.size[0] if self.size else self.js("return window.innerWidth")
        found = self.js(OVERFLOW_SCRIPT, width)
        self.result.setdefault("overflow", []).append({"step": what, **found})
        self.expect(found["innerWidth"] == width and found["clientWidth"] <= width and found["scale"] == 1,
                    f"{what}: the layout viewport is {found['innerWidth']} px (document {found['clientWidth']} px,"
                    f" zoom {found['scale']}) on a {width} px screen")
        self.expect(found["scrollWidth"] <= found["clientWidth"],
                    f"{what}: the page is {found['scrollWidth']} px wide in a {found['clientWidth']} px viewport")
        self.expect(not found["past"], f"{what}: beyond the viewport's edge: " + "; ".join(found["past"][:12]))

    def targets(self, what):
        """Every control on screen is at least 44 x 44 px."""
        small = self.js(TARGETS_SCRIPT)
        self.result.setdefault("targets", []).append({"step": what, "small": small})
        self.expect(not small, f"{what}: tap targets under 44 x 44 px: " + "; ".join(small[:12]))

    def card_in_view(self, what):
        """The card (the stage's picture) is wholly inside the viewport."""
        box = self.js("const b = document.getElementById('card').getBoundingClientRect();"
                      "return {top: b.top, bottom: b.bottom, left: b.left, right: b.right,"
                      " width: window.innerWidth, height: window.innerHeight};")
        if self.size:
            box["width"], box["height"] = min(box["width"], self.size[0]), min(box["height"], self.size[1])
        self.expect(box["top"] >= -0.5 and box["left"] >= -0.5 and box["bottom"] <= box["height"] + 0.5
                    and box["right"] <= box["width"] + 0.5,
                    f"{what}: the card is not in view ({box})")

    def bring_into_view(self, element):
        """Scrolls as a person would until `element` shows (the least scroll), and checks it
        is not under the sticky card: the point at its centre is the element itself. Polled:
        a preview arriving meanwhile may move the page."""
        self.wait("an element scrolled into view is not covered (by the sticky card?)", lambda: self.js(
            "const e = arguments[0]; e.scrollIntoView({block: 'nearest', inline: 'nearest'});"
            "const b = e.getBoundingClientRect();"
            "const hit = document.elementFromPoint(b.left + b.width / 2, b.top + b.height / 2);"
            "return !!hit && (hit === e || e.contains(hit) || hit.contains(e) || "
            "(e.labels && [...e.labels].some(l => l.contains(hit))));", element), seconds=10)

    def tap(self, element):
        """A finger's tap at the element's centre (touch events)."""
        self.bring_into_view(element)
        x, y = self.js("const b = arguments[0].getBoundingClientRect(); return [b.left + b.width / 2, b.top + b.height / 2]",
                       element)
        self.touches("touchStart", [(x, y)])
        self.touches("touchEnd", [])

    def screenshot_pixels(self, last_row=None):
        """The viewport's pixels now: (width, height, rows of RGB bytes) down to `last_row`."""
        data = base64.b64decode(self.cdp("Page.captureScreenshot", format="png")["data"])
        return decode_png(data, last_row)

    def one_picture(self, what):
        """During a gesture: the preview is hidden, the moving copy alone is shown, inside
        the stage (the window), which clips it; returns the state seen."""
        seen = self.js(PICTURES_SCRIPT)
        self.expect(seen["previewHidden"], f"{what}: the last preview is on screen during the gesture ({seen})")
        self.expect(seen["liveShown"], f"{what}: no moving copy during the gesture ({seen})")
        self.expect(seen["clipped"], f"{what}: the moving copy is not clipped to the window ({seen})")
        self.expect(seen["opaque"], f"{what}: the card's background is not opaque ({seen})")
        return seen

    def strip_colours(self, pixels, box):
        """The distinct colours (rounded to 8 levels) of a row of screen pixels across `box`
        (x0, x1, y), skipping the turn button."""
        width, height, rows = pixels
        handle = self.js("const b = document.getElementById('turn-handle').getBoundingClientRect();"
                         "return [b.left - 2, b.right + 2, b.top - 2, b.bottom + 2]")
        x0, x1, y = box
        colours = set()
        y = int(round(y))
        for x in range(int(math.ceil(x0)) + 2, int(x1) - 2):
            if handle[0] <= x <= handle[1] and handle[2] <= y <= handle[3]:
                continue
            r, g, b = rows[y][3 * x:3 * x + 3]
            colours.add((r // 32, g // 32, b // 32))
        return colours

    def margin_strip(self):
        """A row across the card, halfway between its top edge and its window's (the frame's art)."""
        card = self.js("const c = document.getElementById('card').getBoundingClientRect();"
                       "const s = document.querySelector('[data-testid=stage]').getBoundingClientRect();"
                       "return [c.left, c.right, (c.top + s.top) / 2, s.top - c.top];")
        self.expect(card[3] >= 6, f"the window starts {card[3]} px below the card's top: no frame art to look at")
        return card[0], card[1], card[2]

    def pinch_showing_one_picture(self, what, start_distance=120, end_distance=160, steps=6):
        """A two-finger pinch and turn about the stage's centre; at every step the page shows
        one picture: the moving copy alone, clipped to the window (checked in the DOM, and on
        a screenshot: the frame's art above the window is gone while the fingers are down)."""
        box = self.stage_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        strip = self.margin_strip()
        before = self.strip_colours(self.screenshot_pixels(int(strip[2]) + 1), strip)
        self.expect(len(before) > 1, f"{what}: the frame's art is not above the window before the gesture")

        def points(distance, angle):
            radians = math.radians(angle)
            dx, dy = math.cos(radians) * distance / 2, math.sin(radians) * distance / 2
            return [(cx - dx, cy - dy), (cx + dx, cy + dy)]

        self.touches("touchStart", points(start_distance, 0))
        samples = []
        for index in range(1, steps + 1):
            fraction = index / steps
            self.touches("touchMove", points(start_distance + (end_distance - start_distance) * fraction, 6 * fraction))
            self.wait(f"{what}: the moving copy follows the fingers",
                      lambda: self.js("const l = document.getElementById('live'); return !l.hidden", ), seconds=30)
            samples.append(self.one_picture(f"{what}, step {index}"))
            if index == steps // 2:
                # The screenshot is the next frame drawn; polled in case one was under way.
                self.wait(f"{what}: during the gesture the card outside the window shows one colour (else the last "
                          "preview is still drawn)",
                          lambda: len(self.strip_colours(self.screenshot_pixels(int(strip[2]) + 1), strip)) == 1,
                          seconds=10)
                self.shot(f"{what}-during")
        self.touches("touchEnd", [])
        self.settled(what)
        self.wait(f"{what}: the new preview (with its frame) replaces the moving copy",
                  lambda: len(self.strip_colours(self.screenshot_pixels(int(strip[2]) + 1), strip)) > 1, seconds=10)
        self.expect(self.js("return document.getElementById('live').hidden && !document.getElementById('preview').hidden"),
                    f"{what}: after the gesture the moving copy is still shown instead of the preview")
        self.result.setdefault("one_picture", []).append({"gesture": what, "samples": samples})

    def check_words(self, what):
        """No error line on the page speaks in the spec's paths."""
        text = self.js("return [...document.querySelectorAll('.error, #status, #connection')].map(e => e.textContent).join('\\n')")
        for raw in (r"recipients\[", r"\b(message|sender|transform|card|effect)\.\w", r"\bspec:", "The spec is refused"):
            self.expect(not re.search(raw, text), f"{what}: an error speaks in the spec's paths ({raw!r}): {text!r}")

    def audit(self, axe, what):
        """axe-core on the page as it is: no violation."""
        if not self.js("return !!window.axe"):
            self.js(axe)
        found = self.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "axe.run(document, {resultTypes: ['violations']})"
            ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
            " targets: v.nodes.map(n => n.target.join(' '))}))))"
            ".catch(e => done([{id: 'axe-error', help: String(e), targets: []}]));")
        self.result.setdefault("axe", []).append({"step": what, "violations": found})
        self.expect(not found, f"{what}: axe-core found {len(found)} violation(s): " + "; ".join(
            f"{v['id']} ({v['help']}): {', '.join(v['targets'][:6])}" for v in found))

    def finish(self):
        self.result["timings"] = self.js("return window.studio.timings()")
        self.result["long_tasks"] = self.js("return window.studio.longTasks()")
        self.result["console"] = [entry["message"] for entry in self.driver.get_log("browser")]


# Every rendered element's visible box (clipped by its ancestors that clip) against the
# viewport's width, and the document's scroll width.
OVERFLOW_SCRIPT = """
const width = arguments[0];
const name = (e) => e.tagName.toLowerCase() + (e.id ? '#' + e.id : '') +
  (e.dataset && e.dataset.testid ? `[data-testid=${e.dataset.testid}]` : '') +
  (typeof e.className === 'string' && e.className ? '.' + e.className.trim().split(/\\s+/).join('.') : '');
const past = [];
for (const element of document.body.querySelectorAll('*')) {
  if (!element.getClientRects().length) continue;
  const box = element.getBoundingClientRect();
  if (box.width === 0 && box.height === 0) continue;
  let left = box.left, right = box.right, top = box.top, bottom = box.bottom;
  for (let a = element.parentElement; a && a !== document.documentElement; a = a.parentElement) {
    const style = getComputedStyle(a);
    if (style.overflowX === 'visible' && style.overflowY === 'visible') continue;
    const clip = a.getBoundingClientRect();
    left = Math.max(left, clip.left); right = Math.min(right, clip.right);
    top = Math.max(top, clip.top); bottom = Math.min(bottom, clip.bottom);
  }
  if (right - left <= 0 || bottom - top <= 0) continue;
  if (right > width + 0.5 || left < -0.5) past.push(`${name(element)} spans ${Math.round(left)} to ${Math.round(right)}`);
}
return {scrollWidth: document.documentElement.scrollWidth, innerWidth: window.innerWidth,
        clientWidth: document.documentElement.clientWidth,
        scale: window.visualViewport ? window.visualViewport.scale : 1, past};
"""

# The controls on screen smaller than 44 x 44 px.
TARGETS_SCRIPT = """
const small = [];
const controls = 'a[href], button, input:not([type=hidden]), select, textarea, summary, ' +
  '[tabindex]:not([tabindex="-1"]), [role=button], [role=tab]';
for (const element of document.querySelectorAll(controls)) {
  if (!element.getClientRects().length) continue;
  const box = element.getBoundingClientRect();
  if (box.width < 43.99 || box.height < 43.99) {
    small.push(`${element.tagName.toLowerCase()}${element.id ? '#' + element.id : ''}` +
      `${element.type ? '[' + element.type + ']' : ''} "${(element.textContent || element.value || '').trim().slice(0, 30)}"` +
      ` is ${box.width.toFixed(1)} x ${box.height.toFixed(1)}`);
  }
}
return small;
"""

# What the card shows now: the preview, the moving copy, and whether the copy is clipped to
# the window (the stage, overflow hidden) over an opaque background.
PICTURES_SCRIPT = """
const preview = document.getElementById('preview');
const live = document.getElementById('live');
const stage = document.querySelector('[data-testid=stage]');
const card = document.getElementById('card');
const shown = (e) => !e.hidden && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden'
  && Number(getComputedStyle(e).opacity) > 0;
const opaque = (colour) => /^rgb\\(/.test(colour) || /^rgba\\(.*,\\s*1\\)$/.test(colour);
const stageStyle = getComputedStyle(stage);
const liveBox = live.getBoundingClientRect();
const stageBox = stage.getBoundingClientRect();
return {
  previewHidden: !shown(preview),
  liveShown: shown(live) && liveBox.width > 0,
  clipped: live.parentElement === stage && stageStyle.overflow === 'hidden',
  opaque: opaque(getComputedStyle(card).backgroundColor),
  live: [liveBox.left, liveBox.top, liveBox.width, liveBox.height],
  window: [stageBox.left, stageBox.top, stageBox.width, stageBox.height],
  transform: window.studio.spec().transform,
};
"""


def decode_png(data, last_row=None):
    """A PNG screenshot (8-bit RGB or RGBA, not interlaced) as (width, height, rows of RGB
    bytes), decoded down to `last_row` (the rows below it are left out)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise StepFailed("the screenshot is not a PNG")
    position, chunks, header = 8, [], None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks.append(body)
        position += 12 + length
    width, height, depth, colour, _, _, interlace = header
    if depth != 8 or colour not in (2, 6) or interlace:
        raise StepFailed(f"an unexpected screenshot format: depth {depth}, colour type {colour}")
    channels = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * channels
    rows, previous = [], bytearray(stride)
    for y in range(height if last_row is None else min(height, last_row + 1)):
        start = y * (stride + 1)
        kind, line = raw[start], bytearray(raw[start + 1:start + 1 + stride])
        for i in range(stride):
            left = line[i - channels] if i >= channels else 0
            up = previous[i]
            corner = previous[i - channels] if i >= channels else 0
            if kind == 1:
                line[i] = (line[i] + left) & 255
            elif kind == 2:
                line[i] = (line[i] + up) & 255
            elif kind == 3:
                line[i] = (line[i] + (left + up) // 2) & 255
            elif kind == 4:
                p = left + up - corner
                pa, pb, pc = abs(p - left), abs(p - up), abs(p - corner)
                line[i] = (line[i] + (left if pa <= pb and pa <= pc else up if pb <= pc else corner)) & 255
        previous = line
        if channels == 4:
            rows.append(bytes(b for j in range(0, stride, 4) for b in line[j:j + 3]))
        else:
            rows.append(bytes(line))
    return width, height, rows


def gestures(studio, photo):
    """Upload, drag, pinch, turn with two fingers and the handle's keys, wheel, write a
    message with an emoji, add a recipient, order and wait for ready."""
    studio.open()
    studio.upload(photo)
    # A frame from the catalogue, by its thumbnail's label.
    label = studio.driver.find_element(By.XPATH, "//input[@name='frame'][@value='travel/airmail']/parent::label")
    studio.wait("the frame thumbnails load", lambda: studio.js(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", label))
    label.click()
    studio.wait("the frame is in the spec", lambda: studio.spec().get("frame") == "travel/airmail")
    studio.settled("frame")
    studio.shot("framed")
    before = studio.spec()["transform"]
    box = studio.stage_box()
    studio.drag(dx=box["width"] / 5, dy=0)
    studio.settled("drag")
    after = studio.spec()["transform"]
    studio.expect(abs(after["offset"]["x"] - before["offset"]["x"] - 0.2) < 0.003,
                  f"a drag of a fifth of the window's width moved offset.x from {before['offset']['x']} "
                  f"to {after['offset']['x']} (expected +0.2)")
    studio.result["drag"] = {"before": before, "after": after}
    studio.shot("dragged")

    before = studio.spec()["transform"]
    studio.two_fingers(start_distance=100, end_distance=150, start_angle=0, end_angle=0)
    studio.settled("pinch")
    after = studio.spec()["transform"]
    studio.expect(abs(after["scale"] / before["scale"] - 1.5) < 0.02,
                  f"a pinch from 100 to 150 px changed the scale from {before['scale']} to {after['scale']}")
    studio.result["pinch"] = {"before": before, "after": after}
    studio.shot("pinched")

    before = studio.spec()["transform"]
    studio.two_fingers(start_distance=160, end_distance=160, start_angle=0, end_angle=17)
    studio.settled("turn")
    after = studio.spec()["transform"]
    studio.expect(abs(after["rotation"] - before["rotation"] - 17) < 0.5,
                  f"two fingers turned 17 degrees clockwise changed the rotation from {before['rotation']} "
                  f"to {after['rotation']}")
    studio.result["turn"] = {"before": before, "after": after}
    studio.shot("turned")

    # The handle: dragged 10 degrees clockwise about the photo's centre.
    before = studio.spec()["transform"]
    centre = studio.js(
        "const b = document.querySelector('[data-testid=stage]').getBoundingClientRect(); const t = window.studio.spec().transform;"
        "return [b.left + b.width / 2 + t.offset.x * b.width, b.top + b.height / 2 + t.offset.y * b.height];")
    handle = studio.js("const b = document.getElementById('turn-handle').getBoundingClientRect();"
                       "return [b.left + b.width / 2, b.top + b.height / 2];")
    radius = math.hypot(handle[0] - centre[0], handle[1] - centre[1])
    start = math.atan2(handle[1] - centre[1], handle[0] - centre[0])
    studio.mouse("mouseMoved", *handle)
    studio.mouse("mousePressed", *handle, buttons=1)
    for step in range(1, 11):
        angle = start + math.radians(step)
        studio.mouse("mouseMoved", centre[0] + radius * math.cos(angle), centre[1] + radius * math.sin(angle), buttons=1)
    end = (centre[0] + radius * math.cos(start + math.radians(10)), centre[1] + radius * math.sin(start + math.radians(10)))
    studio.mouse("mouseReleased", *end)
    studio.settled("handle")
    after = studio.spec()["transform"]
    studio.expect(abs(after["rotation"] - before["rotation"] - 10) < 0.5,
                  f"the handle dragged 10 degrees clockwise changed the rotation from {before['rotation']} "
                  f"to {after['rotation']}")
    studio.result["handle"] = {"before": before, "after": after}

    before = studio.spec()["transform"]
    studio.wheel(-100, times=3)
    studio.settled("wheel")
    after = studio.spec()["transform"]
    studio.expect(after["scale"] > before["scale"] * 1.5,
                  f"the wheel (3 x -100) changed the scale from {before['scale']} to {after['scale']}")
    studio.shot("wheeled")

    message = studio.by_test_id("message")
    message.click()
    message.send_keys("Greetings from orbit! ")
    studio.insert_text("\U0001F680\U0001F30D")  # rocket, globe: outside the BMP
    studio.wait("the message is in the spec", lambda: "\U0001F680" in (studio.spec().get("message") or {}).get("text", ""))
    for field, value in (("r-name", "Eileen Collins"), ("r-address1", "2101 NASA Parkway"),
                         ("r-postcode", "77058"), ("r-city", "Houston"), ("r-region", "TX"),
                         ("r-country", "USA")):
        studio.driver.find_element(By.ID, field).send_keys(value)
    studio.driver.find_element(By.ID, "add-recipient").click()
    studio.wait("the recipient is in the spec", lambda: len(studio.spec().get("recipients") or []) == 1)
    # The sender, printed small on the back: a card abroad without one may be destroyed.
    for field, value in (("s-name", "Claire Martin"), ("s-address1", "3 rue Lepic"), ("s-postcode", "75018"),
                         ("s-city", "Paris"), ("s-country", "France")):
        studio.driver.find_element(By.ID, field).send_keys(value)
    studio.wait("the sender is in the spec", lambda: (studio.spec().get("sender") or {}).get("country") == "France")
    studio.wait("the back's preview", lambda: studio.js(
        "const b = document.getElementById('back-preview'); return b.src.startsWith('blob:') && b.complete && b.naturalWidth > 0"))
    studio.expect(studio.js("return document.getElementById('message-error').textContent") == "",
                  "the message was refused: " + studio.js("return document.getElementById('message-error').textContent"))
    studio.settled("message")
    studio.shot("message")
    Select(studio.driver.find_element(By.ID, "effect")).select_by_value("sepia")
    studio.wait("the effect is in the spec", lambda: (studio.spec().get("effect") or {}).get("name") == "sepia")
    studio.settled("effect")
    studio.order()
    # The ordered card says how the post takes it; with a sender and a state, nothing to warn of.
    studio.expect(studio.by_test_id("mail").text == "Posted as a postcard.",
                  "the mail note reads: " + studio.by_test_id("mail").text)
    studio.finish()


def keyboard(studio, photo):
    """Everything after choosing the photo from the keyboard alone: Tab to the stage, move,
    zoom and turn with keys, Tab to the message, type, Tab to the order button, Enter."""
    studio.open()
    studio.upload(photo)
    studio.js("document.activeElement.blur(); window.scrollTo(0, 0)")

    def keys(text):
        """Keys pressed on the keyboard, to whatever has the focus."""
        ActionChains(studio.driver).send_keys(text).perform()

    def tab_to(test_id, limit=80):
        for _ in range(limit):
            if studio.js("return document.activeElement.dataset.testid") == test_id:
                return
            keys(Keys.TAB)
        raise StepFailed(f"{test_id} is not reached with Tab")

    tab_to("stage")
    before = studio.spec()["transform"]
    keys(Keys.ARROW_RIGHT * 3 + Keys.ARROW_DOWN * 2 + "++" + "]]]")
    studio.settled("keys")
    after = studio.spec()["transform"]
    studio.result["keys"] = {"before": before, "after": after}
    studio.expect(abs(after["offset"]["x"] - before["offset"]["x"] - 0.03) < 1e-6,
                  f"three right arrows moved offset.x from {before['offset']['x']} to {after['offset']['x']}")
    studio.expect(abs(after["offset"]["y"] - before["offset"]["y"] - 0.02) < 1e-6,
                  f"two down arrows moved offset.y from {before['offset']['y']} to {after['offset']['y']}")
    studio.expect(abs(after["scale"] / before["scale"] - 1.1025) < 0.001,
                  f"++ changed the scale from {before['scale']} to {after['scale']}")
    studio.expect(abs(after["rotation"] - before["rotation"] - 3) < 1e-6,
                  f"]]] changed the rotation from {before['rotation']} to {after['rotation']}")
    studio.shot("keys")
    tab_to("message")
    keys("Typed without a mouse.")
    studio.wait("the message is in the spec", lambda: (studio.spec().get("message") or {}).get("text") == "Typed without a mouse.")
    studio.settled("message")
    tab_to("order")
    studio.order(press_key=True, press=lambda: keys(Keys.ENTER))
    studio.finish()


def errors(studio, photo, not_an_image, too_large, damaged=None):
    """The error paths: refused uploads, a message the back cannot hold, a character no
    font has, and an order sent while the network is down (kept and retried)."""
    studio.open()
    requests = "return performance.getEntriesByType('resource').filter(e => e.name.includes('/v1/photos')).length"
    studio.by_test_id("photo-input").send_keys(not_an_image)
    studio.wait("a file that is not an image is refused",
                lambda: "not an image" in studio.driver.find_element(By.ID, "photo-error").text)
    studio.result["not_an_image"] = studio.driver.find_element(By.ID, "photo-error").text
    studio.by_test_id("photo-input").send_keys(too_large)
    studio.wait("a photo over the limit is refused",
                lambda: "takes photos up to" in studio.driver.find_element(By.ID, "photo-error").text)
    studio.result["too_large"] = studio.driver.find_element(By.ID, "photo-error").text
    studio.expect(studio.js(requests) == 0, "a refused file was sent to the service")
    studio.shot("refused-upload")

    studio.upload(photo)
    if damaged:
        # A photo the service refuses (damaged data: it looks like a JPEG) leaves the photo
        # in use, and its moving copy, as they were.
        chosen = studio.spec()["photo"]
        studio.by_test_id("photo-input").send_keys(damaged)
        studio.wait("a damaged photo is refused by the service",
                    lambda: "damaged" in studio.driver.find_element(By.ID, "photo-error").text)
        studio.result["damaged"] = studio.driver.find_element(By.ID, "photo-error").text
        studio.expect(studio.spec()["photo"] == chosen, "the refused photo replaced the one in use")
        studio.expect(studio.js("return window.studio.liveCopy() !== null"),
                      "the photo in use lost its moving copy when another was refused")
        box = studio.stage_box()
        cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        studio.touches("touchStart", [(cx - 40, cy), (cx + 40, cy)])
        studio.touches("touchMove", [(cx - 50, cy), (cx + 50, cy)])
        studio.wait("the moving copy follows the fingers after a refused photo",
                    lambda: studio.js("return !document.getElementById('live').hidden"), seconds=30)
        studio.one_picture("a gesture after a refused photo")
        studio.touches("touchEnd", [])
        studio.settled("a gesture after a refused photo")
    message = studio.by_test_id("message")
    # The 15 lines arrive as one edit (a paste), so the back is checked once, with all of them.
    studio.js("const m = arguments[0]; m.value = arguments[1]; m.dispatchEvent(new Event('input'))", message,
              "\n".join(f"line {n}" for n in range(1, 16)))
    studio.wait("a message too long for the back is refused at the field",
                lambda: "has 15 lines" in studio.driver.find_element(By.ID, "message-error").text)
    # The photo side still previews and moves while the message is refused.
    before = studio.spec()["transform"]
    studio.drag(dx=studio.stage_box()["width"] / 10, dy=0)
    studio.wait("the photo side's preview while the message is refused",
                lambda: studio.js("return window.studio.previewDigest() !== null && document.getElementById('photo-error').textContent === ''")
                and abs(studio.spec()["transform"]["offset"]["x"] - before["offset"]["x"] - 0.1) < 0.003)
    studio.result["too_long"] = studio.driver.find_element(By.ID, "message-error").text
    studio.expect(studio.result["too_long"].startswith("Message: "),
                  f"the refusal does not name the field as the page does: {studio.result['too_long']!r}")
    studio.check_words("a message too long")
    studio.shot("message-too-long")
    message.clear()
    studio.js("const m = arguments[0]; m.value = ''; m.dispatchEvent(new Event('input'))", message)
    message.click()
    studio.insert_text("Hello \U000F0000")  # a private-use character no font has
    studio.wait("a character no font has is refused at the field",
                lambda: "U+F0000" in studio.driver.find_element(By.ID, "message-error").text)
    studio.result["no_font"] = studio.driver.find_element(By.ID, "message-error").text
    studio.shot("no-font")

    studio.js("const m = arguments[0]; m.value = 'Kept through the outage'; m.dispatchEvent(new Event('input'))", message)
    studio.wait("the message is in the spec", lambda: (studio.spec().get("message") or {}).get("text") == "Kept through the outage")
    studio.settled("message")
    studio.cdp("Network.enable")
    studio.cdp("Network.emulateNetworkConditions", offline=True, latency=0, downloadThroughput=-1, uploadThroughput=-1)
    studio.by_test_id("order").click()
    studio.wait("the page says it will try again",
                lambda: "trying again" in studio.driver.find_element(By.ID, "connection").text)
    studio.result["offline"] = studio.driver.find_element(By.ID, "connection").text
    studio.expect(studio.by_test_id("message").get_attribute("value") == "Kept through the outage",
                  "the message was lost when the order failed")
    studio.shot("offline")
    studio.cdp("Network.emulateNetworkConditions", offline=False, latency=0, downloadThroughput=-1, uploadThroughput=-1)
    studio.wait("the card is ready after the network returns", lambda: studio.by_test_id("status").text == "ready",
                seconds=180)
    studio.result["card"] = studio.js("return window.studio.card()")
    studio.result["cards"] = studio.js("return window.studio.cards()")
    studio.result["ordered_spec"] = studio.spec()
    studio.result["preview_digest"] = studio.js("return window.studio.previewDigest()")
    studio.shot("ordered-after-outage")
    studio.finish()
    # A reload keeps the draft: the photo, its placement and the message.
    spec = studio.spec()
    studio.driver.refresh()
    studio.wait("the studio signs in again from the tab's storage", lambda: studio.js(
        "return !document.getElementById('studio').hidden && !!window.studio && window.studio.spec().photo !== null"))
    studio.settled("reload")
    studio.result["restored_spec"] = studio.spec()
    studio.result["restored_message"] = studio.by_test_id("message").get_attribute("value")
    studio.expect(studio.spec() == spec, f"the reload lost the draft: {studio.spec()} != {spec}")
    studio.shot("reloaded")


def measure(studio, photo, gestures_count):
    """Gestures one after another (drags and pinches), each waited for: the page's timings."""
    studio.open()
    studio.upload(photo)
    studio.result["uploaded_at"] = studio.js("return performance.now()")
    for index in range(int(gestures_count)):
        if index % 3 == 2:
            studio.two_fingers(start_distance=120, end_distance=126 if index % 2 else 114, start_angle=0, end_angle=2)
        else:
            studio.drag(dx=12 if index % 2 else -12, dy=6)
        studio.settled(f"gesture {index}")
    studio.finish()


# ---- the phone ---------------------------------------------------------------------------

def choose_frame(studio, frame_id):
    """Taps a frame's thumbnail, the card in view all along."""
    label = studio.driver.find_element(By.XPATH, f"//input[@name='frame'][@value='{frame_id}']/parent::label")
    studio.wait("the frame thumbnails load", lambda: studio.js(
        "const i = arguments[0].querySelector('img'); return i && i.complete && i.naturalWidth > 0", label))
    studio.bring_into_view(label)
    studio.card_in_view(f"the frame {frame_id} on screen")
    studio.tap(label)
    studio.wait("the frame is in the spec", lambda: studio.spec().get("frame") == frame_id)
    studio.card_in_view(f"the frame {frame_id} chosen")
    studio.settled("frame")
    studio.card_in_view(f"the frame {frame_id} previewed")
    studio.shot("frame-chosen")


def choose_option(studio, element_id, value, check):
    """Picks an option of a select (effect, card size), the card in view all along."""
    select = studio.driver.find_element(By.ID, element_id)
    studio.bring_into_view(select)
    studio.card_in_view(f"the {element_id} on screen")
    Select(select).select_by_value(value)
    studio.wait(f"the {element_id} is in the spec", lambda: check(studio.spec()))
    studio.card_in_view(f"the {element_id} chosen")
    studio.settled(element_id)
    studio.card_in_view(f"the {element_id} previewed")


def type_into(studio, element_id, text):
    element = studio.driver.find_element(By.ID, element_id)
    studio.bring_into_view(element)
    element.clear()
    element.send_keys(text)


def fill_recipient(studio, fields):
    for field in ("name", "address1", "address2", "postcode", "city", "region", "country"):
        type_into(studio, f"r-{field}", fields.get(field, ""))


def add_recipient(studio, fields, count):
    """Adds a recipient the service takes: it is listed, and its back is previewed."""
    fill_recipient(studio, fields)
    studio.tap(studio.driver.find_element(By.ID, "add-recipient"))
    studio.wait(f"recipient {count} is in the spec", lambda: len(studio.spec().get("recipients") or []) == count)
    studio.settled(f"recipient {count}")
    studio.expect(studio.js("return window.studio.back().recipient") == count - 1,
                  f"the back shown is not the new recipient {count}'s")


def wait_ordered(studio, count):
    studio.wait(f"{count} card(s) ready", lambda: len(studio.js("return window.studio.cards()")) == count and all(
        card.get("status") == "ready" for card in studio.js("return window.studio.cards()")), seconds=180)
    studio.wait("the ordered cards' files are linked", lambda: studio.js(
        "return document.querySelectorAll('[data-testid=ordered] a[data-file]').length") == 3 * count)
    studio.wait("the final sample is shown", lambda: studio.js(
        "const f = document.getElementById('final'); return !f.hidden && f.complete && f.naturalWidth > 0"))


def layout(studio, photo, size):
    """At one viewport, with touch: nothing wider than the screen at each step (the card, the
    turn button, error lines, the Placement grid, the ordered sample and its links), every
    control at least 44 x 44 px, the card in view while a frame, an effect and a size are
    chosen, and one picture on the card during a two-finger gesture."""
    studio.open()
    studio.no_overflow("signed in")
    studio.targets("signed in")
    # Text typed in any script reads in its own direction.
    undirected = studio.js("return [...document.querySelectorAll('textarea, input:not([type]), input[type=text], "
                           "input[type=password], input[type=search]')].filter(e => e.dir !== 'auto').map(e => e.id)")
    studio.expect(not undirected, f"text fields without dir=auto: {undirected}")
    studio.upload(photo)
    studio.no_overflow("uploaded")
    studio.targets("uploaded")
    choose_frame(studio, "travel/airmail")
    studio.js("window.scrollTo(0, 0)")
    studio.shot("phone-framed" if studio.size[0] < 900 else "desktop-framed")
    studio.pinch_showing_one_picture("pinch")
    studio.no_overflow("pinched")
    choose_option(studio, "effect", "sepia", lambda spec: (spec.get("effect") or {}).get("name") == "sepia")
    choose_option(studio, "size", "a5", lambda spec: spec["card"]["size"] == "a5")
    studio.no_overflow("a5")
    studio.js("document.querySelector('.transform').scrollIntoView({block: 'nearest'})")
    studio.no_overflow("the Placement grid")
    studio.shot("placement")

    # Error lines: a message the back cannot hold, and a name of 60 letters without a space.
    message = studio.by_test_id("message")
    studio.bring_into_view(message)
    studio.js("const m = arguments[0]; m.value = arguments[1]; m.dispatchEvent(new Event('input'))", message,
              "\n".join(f"line {n}" for n in range(1, 16)))
    studio.wait("the message is refused at the field",
                lambda: "has 15 lines" in studio.driver.find_element(By.ID, "message-error").text)
    fill_recipient(studio, {"name": "B" * 60, "address1": "2101NASAParkwayBuilding" * 2, "postcode": "77058",
                            "city": "Houston", "region": "TX", "country": "USA"})
    studio.tap(studio.driver.find_element(By.ID, "add-recipient"))
    studio.wait("the long name is refused at the recipient",
                lambda: "Recipient 1, name" in studio.driver.find_element(By.ID, "recipient-error").text)
    studio.check_words("errors")
    studio.js("document.getElementById('recipient-error').scrollIntoView({block: 'center'})")
    studio.no_overflow("error lines")
    studio.shot("errors")
    studio.js("const m = arguments[0]; m.value = arguments[1]; m.dispatchEvent(new Event('input'))", message,
              "Greetings from orbit!")
    add_recipient(studio, {"name": "Eileen Collins", "address1": "2101 NASA Parkway", "postcode": "77058",
                           "city": "Houston", "region": "TX", "country": "USA"}, 1)
    studio.no_overflow("a recipient")
    studio.targets("a recipient")
    studio.js("document.getElementById('back-preview').scrollIntoView({block: 'start'})")
    studio.shot("phone-back" if studio.size[0] < 900 else "desktop-back")

    order = studio.by_test_id("order")
    studio.tap(order)
    wait_ordered(studio, 1)
    studio.js("document.getElementById('ordered').scrollIntoView({block: 'end'})")
    studio.no_overflow("ordered")
    studio.targets("ordered")
    studio.shot("phone-ordered" if studio.size[0] < 900 else "desktop-ordered")
    studio.result["card"] = studio.js("return window.studio.card()")
    studio.finish()


def heic(studio, photo):
    """An HEIC photo (which Chromium cannot decode) moves under the finger: its moving copy is
    the service's JPEG of it, and a one-finger drag moves that copy with the finger."""
    studio.open()
    studio.upload(photo)
    studio.wait("the moving copy of the HEIC photo", lambda: studio.js("return window.studio.liveCopy()") is not None,
                seconds=60)
    copy = studio.js("return window.studio.liveCopy()")
    studio.result["live_copy"] = copy
    studio.expect(copy["source"] == "service", f"the HEIC photo's moving copy came from {copy['source']}")
    photo_id = studio.spec()["photo"]
    asked = studio.js("return performance.getEntriesByType('resource').map(e => e.name)"
                      ".filter(n => n.includes('/v1/photos/' + arguments[0] + '?width='))", photo_id)
    studio.expect(asked, "the page did not ask GET /v1/photos/{id}?width=N for the moving copy")
    studio.result["copy_request"] = asked[0]
    choose_frame(studio, "travel/airmail")

    # One finger: the copy's centre moves as the finger does, while the finger is down.
    box = studio.stage_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    before = studio.spec()["transform"]
    studio.touches("touchStart", [(x, y)])
    studio.touches("touchMove", [(x + 2, y)])
    studio.wait("the first move is taken", lambda: studio.js("return !document.getElementById('live').hidden")
                and studio.spec()["transform"]["offset"]["x"] != before["offset"]["x"], seconds=30)
    first = studio.one_picture("drag, start")["live"]
    dx = box["width"] / 5
    steps = 6
    for index in range(1, steps + 1):
        studio.touches("touchMove", [(x + 2 + dx * index / steps, y)])

    def moved():
        """How far the copy's centre has moved since the first sample (the page handles a
        move at its next frame, so this is polled)."""
        seen = studio.one_picture("drag")
        return (seen["live"][0] + seen["live"][2] / 2) - (first[0] + first[2] / 2)

    studio.result["finger_moved"] = dx
    try:
        studio.wait("the moving copy follows the finger", lambda: abs(moved() - dx) < 1.5, seconds=10)
    except StepFailed:
        raise StepFailed(f"the finger moved {dx:.1f} px; the moving copy {moved():.1f} px") from None
    studio.result["copy_moved"] = moved()
    studio.shot("heic-during-drag")
    studio.touches("touchEnd", [])
    studio.settled("drag")
    after = studio.spec()["transform"]
    studio.expect(abs(after["offset"]["x"] - before["offset"]["x"] - (dx + 2) / box["width"]) < 0.003,
                  f"a drag of {dx + 2:.1f} px moved offset.x from {before['offset']['x']} to {after['offset']['x']}")
    studio.pinch_showing_one_picture("pinch")
    studio.shot("heic-placed")
    studio.finish()


def recipients(studio, photo):
    """The turn button from the keyboard, recipients (one refused, in words for people, and
    left out of the list), every recipient's back, a reload that keeps the half-typed
    recipient and rebuilds the moving copy, and each ordered card's files."""
    studio.open()
    studio.upload(photo)

    # The turn button: Tab from the window reaches it; Enter and Space each turn a quarter.
    def keys(text):
        ActionChains(studio.driver).send_keys(text).perform()

    def folded(angle):
        angle = ((angle % 360) + 360) % 360
        return angle - 360 if angle > 180 else angle

    studio.js("document.querySelector('[data-testid=stage]').focus()")
    keys(Keys.TAB)
    studio.expect(studio.js("return document.activeElement.id") == "turn-handle",
                  "Tab from the window does not reach the turn button: " + studio.js("return document.activeElement.id"))
    start = studio.spec()["transform"]["rotation"]
    keys(Keys.ENTER)
    studio.wait("Enter on the turn button turns a quarter",
                lambda: abs(studio.spec()["transform"]["rotation"] - folded(start + 90)) < 1e-6, seconds=10)
    studio.settled("Enter")
    keys(Keys.SPACE)
    studio.wait("Space on the turn button turns a quarter",
                lambda: abs(studio.spec()["transform"]["rotation"] - folded(start + 180)) < 1e-6, seconds=10)
    studio.settled("Space")
    studio.result["turn_button"] = {"before": start, "after": studio.spec()["transform"]["rotation"]}
    studio.shot("turned-by-keyboard")

    message = studio.by_test_id("message")
    studio.bring_into_view(message)
    message.send_keys("Wish you were here.")
    studio.wait("the message is in the spec", lambda: (studio.spec().get("message") or {}).get("text") == "Wish you were here.")
    first = {"name": "Eileen Collins", "address1": "2101 NASA Parkway", "postcode": "77058", "city": "Houston",
             "region": "TX", "country": "USA"}
    second = {"name": "Claudie Haigneré", "address1": "12 rue de l'Espace", "postcode": "31400", "city": "Toulouse",
              "country": "France"}
    add_recipient(studio, first, 1)
    add_recipient(studio, second, 2)

    # A third the service refuses: the error names the field as a person reads it and says
    # what to do; the recipient is not added, and what was typed stays in the form.
    fill_recipient(studio, {"name": "Wernher Magnus Maximilian Freiherr von Braun Jr.", "address1": "1 Rocket Road",
                            "postcode": "35812", "city": "Huntsville", "region": "AL", "country": "USA"})
    studio.tap(studio.driver.find_element(By.ID, "add-recipient"))
    studio.wait("the long name is refused", lambda: studio.driver.find_element(By.ID, "recipient-error").text != "")
    refused = studio.driver.find_element(By.ID, "recipient-error").text
    studio.result["refused_recipient"] = refused
    studio.expect(refused.startswith("Recipient 3, name: "), f"the refusal does not name the field: {refused!r}")
    studio.expect("Shorten" in refused, f"the refusal does not say what to do: {refused!r}")
    studio.check_words("a refused recipient")
    studio.expect(len(studio.spec().get("recipients") or []) == 2, "the refused recipient was added to the spec")
    studio.expect(studio.js("return document.querySelectorAll('#recipient-list li').length") == 2,
                  "the refused recipient is listed")
    studio.expect(studio.driver.find_element(By.ID, "r-name").get_attribute("value").startswith("Wernher"),
                  "the refused recipient's name left the form")
    studio.js("document.getElementById('recipient-error').scrollIntoView({block: 'end'})")
    studio.shot("refused-recipient")

    # Every recipient's back: each "Show back" previews that recipient's back alone.
    backs = []
    for index in range(2):
        button = studio.driver.find_elements(By.CSS_SELECTOR, "#recipient-list .show-back")[index]
        studio.tap(button)
        studio.wait(f"recipient {index + 1}'s back", lambda: studio.js("return window.studio.back().recipient") == index)
        studio.settled(f"recipient {index + 1}'s back")
        back = studio.js("return window.studio.back()")
        studio.expect(back["spec"]["recipients"] == [studio.spec()["recipients"][index]],
                      f"the back of recipient {index + 1} was asked with {back['spec'].get('recipients')}")
        # The service's own back for this recipient alone is the one on screen.
        digest = studio.driver.execute_async_script(
            "const done = arguments[arguments.length - 1];"
            "fetch('/v1/previews?side=back', {method: 'POST', headers: {'Authorization': 'Bearer ' + arguments[0],"
            " 'Content-Type': 'application/json'}, body: JSON.stringify(arguments[1])})"
            ".then(r => r.arrayBuffer()).then(b => crypto.subtle.digest('SHA-256', b))"
            ".then(d => done([...new Uint8Array(d)].map(x => x.toString(16).padStart(2, '0')).join('')))"
            ".catch(e => done('error: ' + e));", studio.key, back["spec"])
        studio.expect(digest == back["digest"], f"the back shown for recipient {index + 1} is not the service's")
        caption = studio.driver.find_element(By.ID, "back-caption").text
        studio.expect(f"recipient {index + 1}" in caption, f"the back's caption reads {caption!r}")
        backs.append(back)
        studio.js("document.getElementById('back').scrollIntoView({block: 'start'})")
        studio.shot(f"back-{index + 1}")
    studio.expect(backs[0]["digest"] != backs[1]["digest"], "the two recipients' backs are the same picture")
    studio.result["backs"] = backs

    # A half-typed recipient and the moving copy survive a reload.
    fill_recipient(studio, {"name": "Thomas Pesquet", "city": "Rouen"})
    studio.wait("the half-typed recipient is kept", lambda: "Thomas Pesquet" in (
        studio.js("return sessionStorage.getItem('cardrender.studio.draft')") or ""))
    spec = studio.spec()
    studio.driver.refresh()
    studio.wait("the studio signs in again from the tab's storage", lambda: studio.js(
        "return !document.getElementById('studio').hidden && !!window.studio && window.studio.spec().photo !== null"))
    studio.settled("reload")
    studio.expect(studio.spec() == spec, f"the reload lost the draft: {studio.spec()} != {spec}")
    kept = {field: studio.driver.find_element(By.ID, f"r-{field}").get_attribute("value") for field in ("name", "city")}
    studio.result["kept_recipient"] = kept
    studio.expect(kept == {"name": "Thomas Pesquet", "city": "Rouen"}, f"the half-typed recipient after the reload: {kept}")
    studio.wait("the moving copy after the reload", lambda: studio.js("return window.studio.liveCopy()") is not None,
                seconds=60)
    copy = studio.js("return window.studio.liveCopy()")
    studio.result["live_copy_after_reload"] = copy
    studio.expect(copy["source"] == "service", f"after the reload the moving copy came from {copy['source']}")
    box = studio.stage_box()
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    studio.touches("touchStart", [(x, y)])
    studio.touches("touchMove", [(x + 10, y + 4)])
    studio.one_picture("a drag after the reload")
    studio.touches("touchMove", [(x + 20, y + 8)])
    studio.touches("touchEnd", [])
    studio.settled("drag after the reload")
    studio.shot("reloaded")

    # Order: one card per recipient, each with its files; the print file downloads.
    downloads = os.path.join(studio.out, "downloads")
    os.makedirs(downloads, exist_ok=True)
    studio.cdp("Browser.setDownloadBehavior", behavior="allow", downloadPath=downloads)
    studio.tap(studio.by_test_id("order"))
    wait_ordered(studio, 2)
    studio.result["cards"] = studio.js("return window.studio.cards()")
    links = studio.js("return [...document.querySelectorAll('[data-testid=ordered] li')].map(li =>"
                      " [...li.querySelectorAll('a[data-file]')].map(a => [a.dataset.file, a.getAttribute('href')]))")
    studio.result["links"] = links
    for index, (card, files) in enumerate(zip(studio.result["cards"], links)):
        studio.expect([name for name, _ in files] == ["sample", "small", "print"],
                      f"card {index + 1} links {files}")
        for name, href in files:
            studio.expect(href.startswith("blob:") or href == card["files"][name],
                          f"card {index + 1}'s {name} links {href}, not its file {card['files'][name]}")
    link = studio.driver.find_elements(By.CSS_SELECTOR, "[data-testid=ordered] li")[1].find_element(
        By.CSS_SELECTOR, "a[data-file=print]")
    studio.tap(link)
    studio.wait("the print file is downloaded", lambda: [name for name in os.listdir(downloads)
                                                         if not name.endswith(".crdownload")], seconds=60)
    name = [name for name in os.listdir(downloads) if not name.endswith(".crdownload")][0]
    with open(os.path.join(downloads, name), "rb") as handle:
        head = handle.read(3)
    studio.result["downloaded"] = {"name": name, "bytes": os.path.getsize(os.path.join(downloads, name))}
    studio.expect(head == b"\xff\xd8\xff", f"the downloaded print file {name} is not a JPEG")
    studio.expect(studio.result["cards"][1]["id"] in name, f"the downloaded file {name} is not card 2's")
    studio.expect(studio.js("return arguments[0].href.startsWith('blob:') && arguments[0].download !== ''", link),
                  "the print file's link is not a download of the fetched file")
    studio.js("document.getElementById('ordered').scrollIntoView({block: 'end'})")
    studio.shot("ordered")
    studio.finish()


def audit(studio, photo, size, axe_path):
    """axe-core (its axe.min.js, injected) at each step: no violation."""
    with open(axe_path, encoding="utf-8") as handle:
        axe = handle.read()
    studio.open()
    studio.audit(axe, "signed in")
    studio.upload(photo)
    choose_frame(studio, "travel/airmail")
    studio.audit(axe, "framed")
    message = studio.by_test_id("message")
    studio.js("const m = arguments[0]; m.value = arguments[1]; m.dispatchEvent(new Event('input'))", message,
              "\n".join(f"line {n}" for n in range(1, 16)))
    studio.wait("the message is refused at the field",
                lambda: "has 15 lines" in studio.driver.find_element(By.ID, "message-error").text)
    studio.audit(axe, "an error line")
    studio.js("const m = arguments[0]; m.value = arguments[1]; m.dispatchEvent(new Event('input'))", message, "Hello")
    # The error line goes when the service takes the message, and the page below it moves up:
    # a tap measured before that lands where the button was.
    studio.wait("the message is taken", lambda: studio.driver.find_element(By.ID, "message-error").text == "")
    studio.settled("the message taken")
    add_recipient(studio, {"name": "Eileen Collins", "address1": "2101 NASA Parkway", "postcode": "77058",
                           "city": "Houston", "region": "TX", "country": "USA"}, 1)
    studio.audit(axe, "a recipient")
    studio.tap(studio.by_test_id("order"))
    wait_ordered(studio, 1)
    studio.audit(axe, "ordered")
    studio.shot("audited")
    studio.finish()


def main():
    scenario, base, key, photo, out = sys.argv[1:6]
    extra = sys.argv[6:]
    os.makedirs(out, exist_ok=True)
    # The phone scenarios' first extra argument is the viewport, WIDTHxHEIGHT.
    phone = {"layout": layout, "heic": heic, "recipients": recipients, "audit": audit}
    size = extra[0] if scenario in phone else None
    if scenario in ("heic", "recipients"):
        extra = extra[1:]
    studio = Studio(base, key, out, size=size)
    status = 0
    try:
        {"gestures": gestures, "keyboard": keyboard, "errors": errors, "measure": measure, **phone}[scenario](
            studio, photo, *extra)
    except Exception as failure:
        studio.result["failure"] = f"{type(failure).__name__}: {failure}"
        try:
            studio.shot("failed")
            studio.finish()
        except Exception:
            pass
        print(f"studio_driver {scenario}: {failure}", file=sys.stderr)
        status = 1
    finally:
        with open(os.path.join(out, "result.json"), "w") as handle:
            json.dump(studio.result, handle, indent=1, ensure_ascii=False)
        studio.driver.quit()
    sys.exit(status)


if __name__ == "__main__":
    main()
