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
"""
import json
import math
import os
import sys
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import Select, WebDriverWait


class StepFailed(Exception):
    pass


class Studio:
    def __init__(self, base, key, out):
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

    def upload(self, photo):
        self.by_test_id("photo-input").send_keys(photo)
        self.wait("the photo is uploaded and placed", lambda: self.js("return !!window.studio.placement()"))
        self.settled("upload")
        self.result["placement"] = self.js("return window.studio.placement()")
        # The live copy is the upright photo (the browser applies EXIF orientation), reduced.
        self.result["live_copy"] = self.js(
            "const c = document.getElementById('live'); return c.dataset.ready ? [c.width, c.height] : null")
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

    def finish(self):
        self.result["timings"] = self.js("return window.studio.timings()")
        self.result["long_tasks"] = self.js("return window.studio.longTasks()")
        self.result["console"] = [entry["message"] for entry in self.driver.get_log("browser")]


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


def errors(studio, photo, not_an_image, too_large):
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


def main():
    scenario, base, key, photo, out = sys.argv[1:6]
    extra = sys.argv[6:]
    os.makedirs(out, exist_ok=True)
    studio = Studio(base, key, out)
    status = 0
    try:
        {"gestures": gestures, "keyboard": keyboard, "errors": errors, "measure": measure}[scenario](
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
