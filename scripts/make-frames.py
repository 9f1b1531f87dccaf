#!/usr/bin/env python3
"""Writes the frame catalogue: frames/<theme>/<name>.svg and .json (18 frames, 6 themes).

The art is vector SVG drawn at A6 print size (300 dpi: 1748x1240 landscape or 1240x1748
portrait); the photo window is left fully transparent. cardrender renders the SVG with
libvips. Re-run after editing a design: python3 scripts/make-frames.py"""
import json
import math
import os
import random

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "frames")
LANDSCAPE, PORTRAIT = (1748, 1240), (1240, 1748)


def hole(size, window):
    """A path covering the card minus the window (even-odd), for the frame's body."""
    w, h = size
    x, y, ww, wh = window
    return f"M0,0 H{w} V{h} H0 Z M{x},{y} H{x + ww} V{y + wh} H{x} Z"


def outside(window, px, py, margin):
    x, y, w, h = window
    return not (x - margin < px < x + w + margin and y - margin < py < y + h + margin)


def scatter(size, window, count, margin, seed, draw):
    """Places `count` motifs at seeded random spots outside the window."""
    rng = random.Random(seed)
    parts, tries = [], 0
    while len(parts) < count and tries < count * 200:
        tries += 1
        px, py = rng.uniform(0, size[0]), rng.uniform(0, size[1])
        if outside(window, px, py, margin):
            parts.append(draw(rng, px, py))
    return "\n".join(parts)


def heart(cx, cy, s, fill, rot=0):
    return (f'<path transform="translate({cx:.1f},{cy:.1f}) rotate({rot:.1f}) scale({s:.2f})" fill="{fill}" '
            'd="M0,6 C-10,-4 -22,4 -14,14 L0,28 L14,14 C22,4 10,-4 0,6 Z"/>')


def star(cx, cy, r, fill, points=5, rot=0):
    pts = []
    for i in range(points * 2):
        radius = r if i % 2 == 0 else r * 0.45
        a = math.pi * i / points + math.radians(rot) - math.pi / 2
        pts.append(f"{cx + radius * math.cos(a):.1f},{cy + radius * math.sin(a):.1f}")
    return f'<polygon points="{" ".join(pts)}" fill="{fill}"/>'


def snowflake(cx, cy, r, colour):
    arms = []
    for i in range(6):
        a = math.radians(60 * i)
        x2, y2 = cx + r * math.cos(a), cy + r * math.sin(a)
        arms.append(f'<line x1="{cx:.1f}" y1="{cy:.1f}" x2="{x2:.1f}" y2="{y2:.1f}"/>')
        for f in (0.45, 0.7):
            bx, by = cx + r * f * math.cos(a), cy + r * f * math.sin(a)
            for d in (-1, 1):
                b = a + d * math.radians(40)
                arms.append(f'<line x1="{bx:.1f}" y1="{by:.1f}" x2="{bx + r * 0.25 * math.cos(b):.1f}" '
                            f'y2="{by + r * 0.25 * math.sin(b):.1f}"/>')
    return f'<g stroke="{colour}" stroke-width="{max(3, r / 9):.1f}" stroke-linecap="round">{"".join(arms)}</g>'


def balloon(cx, cy, r, fill):
    return (f'<g><path d="M{cx},{cy + r * 1.2} q{r * 0.3},{r * 0.9} {-r * 0.1},{r * 2.2}" stroke="#7a6a5a" '
            f'stroke-width="3" fill="none"/><ellipse cx="{cx}" cy="{cy}" rx="{r}" ry="{r * 1.2}" fill="{fill}"/>'
            f'<ellipse cx="{cx - r * 0.35}" cy="{cy - r * 0.45}" rx="{r * 0.18}" ry="{r * 0.3}" fill="#ffffff" '
            f'opacity="0.45"/><polygon points="{cx - 8},{cy + r * 1.25} {cx + 8},{cy + r * 1.25} {cx},{cy + r * 1.13}" '
            f'fill="{fill}"/></g>')


def svg(size, body, defs=""):
    w, h = size
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" viewBox="0 0 {w} {h}">\n'
            f"<defs>{defs}</defs>\n{body}\n</svg>\n")


def text(x, y, content, size, fill, family="serif", style="italic", weight="normal", anchor="middle", rot=0):
    return (f'<text x="{x}" y="{y}" font-family="{family}" font-size="{size}" font-style="{style}" '
            f'font-weight="{weight}" fill="{fill}" text-anchor="{anchor}" transform="rotate({rot} {x} {y})">'
            f"{content}</text>")


FRAMES = []


def frame(theme, name, title, size, window, effect=None):
    def register(draw):
        FRAMES.append(dict(theme=theme, name=name, title=title, size=size, window=window, effect=effect, draw=draw))
        return draw
    return register


# ---- classic -------------------------------------------------------------------------
@frame("classic", "gilded", "Gilded edge", LANDSCAPE, (150, 140, 1448, 960))
def _(size, win):
    x, y, w, h = win
    defs = ('<linearGradient id="gold" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#f6e27a"/>'
            '<stop offset="0.5" stop-color="#b8892b"/><stop offset="1" stop-color="#f3d36b"/></linearGradient>')
    return svg(size, f'<path fill-rule="evenodd" fill="#f7f1e3" d="{hole(size, win)}"/>'
               f'<rect x="40" y="40" width="{size[0] - 80}" height="{size[1] - 80}" fill="none" stroke="url(#gold)" stroke-width="18"/>'
               f'<rect x="72" y="72" width="{size[0] - 144}" height="{size[1] - 144}" fill="none" stroke="url(#gold)" stroke-width="5"/>'
               f'<rect x="{x - 14}" y="{y - 14}" width="{w + 28}" height="{h + 28}" fill="none" stroke="url(#gold)" stroke-width="8"/>'
               + "".join(star(cx, cy, 26, "url(#gold)", 4) for cx, cy in
                         [(56, 56), (size[0] - 56, 56), (56, size[1] - 56), (size[0] - 56, size[1] - 56)]), defs)


@frame("classic", "ebony", "Ebony wood", LANDSCAPE, (170, 170, 1408, 900))
def _(size, win):
    x, y, w, h = win
    defs = ('<linearGradient id="wood" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#3b2416"/>'
            '<stop offset="0.3" stop-color="#5a3822"/><stop offset="0.6" stop-color="#2e1b10"/>'
            '<stop offset="1" stop-color="#4a2e1c"/></linearGradient>')
    grain = "".join(f'<path d="M0,{15 + i * 23} C400,{5 + i * 23} 900,{30 + i * 23} {size[0]},{12 + i * 23}" '
                    f'stroke="#1d110a" stroke-width="2" opacity="0.35" fill="none"/>' for i in range(54))
    defs += f'<clipPath id="body"><path clip-rule="evenodd" d="{hole(size, win)}"/></clipPath>'
    return svg(size, f'<path fill-rule="evenodd" fill="url(#wood)" d="{hole(size, win)}"/>'
               f'<g clip-path="url(#body)">{grain}</g>'
               f'<path fill-rule="evenodd" fill="url(#wood)" opacity="0.55" d="{hole(size, win)}"/>'
               f'<rect x="{x - 24}" y="{y - 24}" width="{w + 48}" height="{h + 48}" fill="none" stroke="#c9a46a" stroke-width="10"/>'
               f'<rect x="{x - 6}" y="{y - 6}" width="{w + 12}" height="{h + 12}" fill="none" stroke="#120a05" stroke-width="12"/>',
               defs)


@frame("classic", "passe-partout", "Passe-partout", PORTRAIT, (170, 170, 900, 1260))
def _(size, win):
    x, y, w, h = win
    return svg(size, f'<path fill-rule="evenodd" fill="#fbfaf6" d="{hole(size, win)}"/>'
               f'<rect x="{x - 30}" y="{y - 30}" width="{w + 60}" height="{h + 60}" fill="none" stroke="#b7b2a6" stroke-width="3"/>'
               f'<rect x="{x - 4}" y="{y - 4}" width="{w + 8}" height="{h + 8}" fill="none" stroke="#8d877a" stroke-width="8"/>'
               + text(size[0] / 2, y + h + 150, "Souvenir", 96, "#6f6a5e", weight="normal")
               + f'<line x1="{size[0] / 2 - 220}" y1="{y + h + 200}" x2="{size[0] / 2 + 220}" y2="{y + h + 200}" stroke="#b7b2a6" stroke-width="3"/>')


# ---- vintage -------------------------------------------------------------------------
@frame("vintage", "deckle", "Deckle-edged print", LANDSCAPE, (160, 150, 1428, 940), effect="sepia")
def _(size, win):
    w, h = size
    scallops = []
    for i in range(0, w + 40, 40):
        scallops += [f'<circle cx="{i}" cy="0" r="22"/>', f'<circle cx="{i}" cy="{h}" r="22"/>']
    for j in range(0, h + 40, 40):
        scallops += [f'<circle cx="0" cy="{j}" r="22"/>', f'<circle cx="{w}" cy="{j}" r="22"/>']
    return svg(size, f'<path fill-rule="evenodd" fill="#efe2c4" d="{hole(size, win)}"/>'
               f'<g fill="#ffffff">{"".join(scallops)}</g>'
               f'<rect x="{win[0] - 10}" y="{win[1] - 10}" width="{win[2] + 20}" height="{win[3] + 20}" fill="none" stroke="#c7ad7f" stroke-width="4"/>'
               + text(w - 180, h - 52, "1926", 64, "#8b6b3d", family="serif"))


@frame("vintage", "instant", "Instant photo", PORTRAIT, (110, 120, 1020, 1200), effect="vintage")
def _(size, win):
    w, h = size
    return svg(size, f'<path fill-rule="evenodd" fill="#fdfcf7" d="{hole(size, win)}"/>'
               f'<rect x="{win[0] - 4}" y="{win[1] - 4}" width="{win[2] + 8}" height="{win[3] + 8}" fill="none" stroke="#e3dfd2" stroke-width="3"/>'
               f'<path d="M0,{h - 14} H{w}" stroke="#e8e4d8" stroke-width="28"/>'
               + text(w / 2, h - 190, "les beaux jours", 92, "#3a4a7a", family="cursive")
               + f'<rect x="{w / 2 - 110}" y="10" width="220" height="70" fill="#e9dfb8" opacity="0.85" transform="rotate(-3 {w / 2} 45)"/>')


@frame("vintage", "film", "Film strip", LANDSCAPE, (110, 170, 1528, 900), effect="bw")
def _(size, win):
    w, h = size
    holes = "".join(f'<rect x="{i}" y="{y}" width="46" height="62" rx="8" fill="#f2f2f2"/>'
                    for i in range(40, w - 40, 92) for y in (50, h - 112))
    return svg(size, f'<path fill-rule="evenodd" fill="#141414" d="{hole(size, win)}"/>{holes}'
               + text(160, 150, "KODAK 400TX", 34, "#e0a526", family="sans-serif", style="normal", weight="bold", anchor="start")
               + text(w - 160, h - 130, "24A", 34, "#e0a526", family="sans-serif", style="normal", weight="bold", anchor="end"))


# ---- travel --------------------------------------------------------------------------
@frame("travel", "airmail", "Par avion", LANDSCAPE, (130, 130, 1488, 980))
def _(size, win):
    w, h = size
    defs = ('<pattern id="stripes" width="120" height="120" patternUnits="userSpaceOnUse" patternTransform="rotate(45)">'
            '<rect width="40" height="120" fill="#c8102e"/><rect x="40" width="20" height="120" fill="#ffffff"/>'
            '<rect x="60" width="40" height="120" fill="#0b3d91"/><rect x="100" width="20" height="120" fill="#ffffff"/></pattern>')
    return svg(size, f'<path fill-rule="evenodd" fill="url(#stripes)" d="{hole(size, win)}"/>'
               f'<rect x="{win[0] - 16}" y="{win[1] - 16}" width="{win[2] + 32}" height="{win[3] + 32}" fill="none" stroke="#ffffff" stroke-width="20"/>'
               f'<rect x="{w - 560}" y="{h - 118}" width="440" height="84" fill="#ffffff"/>'
               + text(w - 340, h - 56, "PAR AVION", 58, "#0b3d91", family="sans-serif", style="normal", weight="bold"), defs)


@frame("travel", "stamp", "Postage stamp", PORTRAIT, (150, 150, 940, 1300))
def _(size, win):
    w, h = size
    perforation = "".join(f'<circle cx="{i}" cy="0" r="20"/><circle cx="{i}" cy="{h}" r="20"/>' for i in range(0, w + 60, 60))
    perforation += "".join(f'<circle cx="0" cy="{j}" r="20"/><circle cx="{w}" cy="{j}" r="20"/>' for j in range(0, h + 60, 60))
    post = (f'<g fill="none" stroke="#2b2b2b" stroke-width="6" opacity="0.55"><circle cx="{w - 230}" cy="{h - 150}" r="120"/>'
            f'<circle cx="{w - 230}" cy="{h - 150}" r="95"/>'
            + "".join(f'<path d="M{w - 520},{h - 210 + k * 40} q60,-25 120,0 t120,0 t120,0"/>' for k in range(4)) + "</g>")
    return svg(size, f'<path fill-rule="evenodd" fill="#f4efe1" d="{hole(size, win)}"/>'
               f'<g fill="#ffffff">{perforation}</g>'
               + text(win[0], h - 130, "FRANCE", 70, "#7a1f1f", family="serif", style="normal", weight="bold", anchor="start")
               + text(win[0], h - 60, "1,80 €", 54, "#7a1f1f", family="serif", style="normal", anchor="start") + post)


@frame("travel", "greetings", "Greetings from", LANDSCAPE, (120, 260, 1508, 860))
def _(size, win):
    w, h = size
    defs = ('<linearGradient id="sky" x1="0" y1="0" x2="0" y2="1"><stop offset="0" stop-color="#1f6fb2"/>'
            '<stop offset="1" stop-color="#66b3e6"/></linearGradient>')
    compass = (f'<g transform="translate({w - 150},{130})"><circle r="80" fill="#fdf6e3" stroke="#c8102e" stroke-width="6"/>'
               + star(0, 0, 70, "#c8102e", 4) + star(0, 0, 40, "#0b3d91", 4, 45) + "</g>")
    return svg(size, f'<path fill-rule="evenodd" fill="url(#sky)" d="{hole(size, win)}"/>'
               + text(w / 2 - 110, 175, "Bons baisers de vacances", 96, "#fdf6e3", family="serif", weight="bold")
               + compass + f'<rect x="{win[0] - 8}" y="{win[1] - 8}" width="{win[2] + 16}" height="{win[3] + 16}" fill="none" stroke="#fdf6e3" stroke-width="10"/>',
               defs)


# ---- holidays ------------------------------------------------------------------------
@frame("holidays", "snowflakes", "Snowfall", LANDSCAPE, (170, 160, 1408, 920))
def _(size, win):
    defs = ('<radialGradient id="winter" cx="0.5" cy="0.5" r="0.75"><stop offset="0" stop-color="#3d7cc9"/>'
            '<stop offset="1" stop-color="#0f2f66"/></radialGradient>')
    flakes = scatter(size, win, 40, 60, 7, lambda r, x, y: snowflake(x, y, r.uniform(18, 44), "#eaf4ff"))
    return svg(size, f'<path fill-rule="evenodd" fill="url(#winter)" d="{hole(size, win)}"/>{flakes}'
               + text(size[0] / 2, size[1] - 40, "Meilleurs vœux", 80, "#ffffff", family="serif"), defs)


@frame("holidays", "holly", "Holly and berries", PORTRAIT, (160, 170, 920, 1300))
def _(size, win):
    def sprig(r, x, y):
        a = r.uniform(0, 360)
        return (f'<g transform="translate({x:.0f},{y:.0f}) rotate({a:.0f})">'
                '<path d="M0,0 q30,-40 80,-30 q-10,15 5,25 q-20,5 -15,25 q-30,-10 -70,-20 Z" fill="#1f6b3a"/>'
                '<path d="M0,0 q-30,-40 -80,-30 q10,15 -5,25 q20,5 15,25 q30,-10 70,-20 Z" fill="#2a8a4b"/>'
                '<circle cx="0" cy="8" r="13" fill="#c8102e"/><circle cx="16" cy="18" r="12" fill="#b00d28"/>'
                '<circle cx="-15" cy="19" r="12" fill="#d91a3a"/></g>')
    return svg(size, f'<path fill-rule="evenodd" fill="#fbf7ee" d="{hole(size, win)}"/>'
               f'<rect x="30" y="30" width="{size[0] - 60}" height="{size[1] - 60}" fill="none" stroke="#c8102e" stroke-width="12"/>'
               + scatter(size, win, 16, 110, 11, sprig)
               + text(size[0] / 2, size[1] - 130, "Joyeux Noël", 110, "#1f6b3a", family="serif"))


@frame("holidays", "starry", "Starry night", LANDSCAPE, (200, 150, 1348, 940))
def _(size, win):
    stars = scatter(size, win, 60, 40, 5, lambda r, x, y: star(x, y, r.uniform(8, 30), r.choice(["#ffd86b", "#fff3c4", "#f5c542"]), 5, r.uniform(0, 70)))
    return svg(size, f'<path fill-rule="evenodd" fill="#0b1633" d="{hole(size, win)}"/>{stars}'
               f'<circle cx="110" cy="110" r="60" fill="#fff3c4"/><circle cx="135" cy="95" r="55" fill="#0b1633"/>'
               + text(size[0] - 110, size[1] - 45, "Bonne année", 70, "#ffd86b", family="serif", anchor="end"))


# ---- birthday ------------------------------------------------------------------------
@frame("birthday", "confetti", "Confetti", LANDSCAPE, (150, 150, 1448, 940))
def _(size, win):
    colours = ["#e63946", "#f4a261", "#2a9d8f", "#457b9d", "#e9c46a", "#9b5de5", "#00bbf9"]
    bits = scatter(size, win, 220, 32, 3, lambda r, x, y: (
        f'<rect x="{x:.0f}" y="{y:.0f}" width="{r.uniform(10, 26):.0f}" height="{r.uniform(6, 12):.0f}" '
        f'fill="{r.choice(colours)}" transform="rotate({r.uniform(0, 180):.0f} {x:.0f} {y:.0f})"/>'
        if r.random() < 0.6 else f'<circle cx="{x:.0f}" cy="{y:.0f}" r="{r.uniform(5, 12):.0f}" fill="{r.choice(colours)}"/>'))
    return svg(size, f'<path fill-rule="evenodd" fill="#fffaf0" d="{hole(size, win)}"/>{bits}'
               + text(size[0] / 2, size[1] - 40, "Joyeux anniversaire !", 84, "#e63946", family="sans-serif", weight="bold"))


@frame("birthday", "balloons", "Balloons", PORTRAIT, (230, 200, 780, 1150))
def _(size, win):
    w, h = size
    left = "".join(balloon(x, y, r, c) for x, y, r, c in [(110, 300, 75, "#e63946"), (90, 620, 65, "#2a9d8f"), (125, 930, 80, "#e9c46a")])
    right = "".join(balloon(x, y, r, c) for x, y, r, c in [(w - 110, 250, 70, "#457b9d"), (w - 100, 560, 80, "#f4a261"), (w - 120, 900, 66, "#9b5de5")])
    return svg(size, f'<path fill-rule="evenodd" fill="#fff4e6" d="{hole(size, win)}"/>{left}{right}'
               + text(w / 2, h - 200, "Happy", 120, "#e63946", family="sans-serif", weight="bold", style="normal")
               + text(w / 2, h - 70, "birthday", 110, "#457b9d", family="cursive"))


@frame("birthday", "bunting", "Bunting", LANDSCAPE, (140, 300, 1468, 820))
def _(size, win):
    w = size[0]
    colours = ["#e63946", "#f4a261", "#e9c46a", "#2a9d8f", "#457b9d", "#9b5de5"]
    flags = []
    for i, x in enumerate(range(20, w - 60, 110)):
        sag = 40 * math.sin(math.pi * x / w)
        flags.append(f'<polygon points="{x},{40 + sag:.0f} {x + 100},{40 + sag:.0f} {x + 50},{190 + sag:.0f}" fill="{colours[i % 6]}"/>')
    return svg(size, f'<path fill-rule="evenodd" fill="#fdf0d5" d="{hole(size, win)}"/>'
               f'<path d="M0,38 Q{w / 2},118 {w},38" stroke="#6d597a" stroke-width="6" fill="none"/>{"".join(flags)}'
               + text(w / 2, 270, "Bon anniversaire", 70, "#6d597a", family="serif")
               + f'<rect x="{win[0] - 12}" y="{win[1] - 12}" width="{win[2] + 24}" height="{win[3] + 24}" fill="none" stroke="#6d597a" stroke-width="6" stroke-dasharray="30 14"/>')


# ---- love ----------------------------------------------------------------------------
@frame("love", "hearts", "Hearts", LANDSCAPE, (160, 150, 1428, 940))
def _(size, win):
    hearts = scatter(size, win, 70, 85, 2, lambda r, x, y: heart(x, y, r.uniform(1.0, 2.6), r.choice(["#e5383b", "#ff758f", "#c9184a", "#ffb3c1"]), r.uniform(-30, 30)))
    return svg(size, f'<path fill-rule="evenodd" fill="#fff0f3" d="{hole(size, win)}"/>{hearts}'
               + text(size[0] / 2, size[1] - 40, "Je t'aime", 86, "#c9184a", family="cursive"))


@frame("love", "rose", "Rose garden", PORTRAIT, (170, 170, 900, 1230))
def _(size, win):
    defs = ('<linearGradient id="blush" x1="0" y1="0" x2="1" y2="1"><stop offset="0" stop-color="#ffccd5"/>'
            '<stop offset="1" stop-color="#ff8fa3"/></linearGradient>')
    def rose(r, x, y):
        s = r.uniform(0.7, 1.3)
        petals = "".join(f'<ellipse cx="0" cy="{-14 * s:.0f}" rx="{16 * s:.0f}" ry="{26 * s:.0f}" fill="#c9184a" '
                         f'opacity="0.75" transform="rotate({k * 72})"/>' for k in range(5))
        return f'<g transform="translate({x:.0f},{y:.0f})">{petals}<circle r="{10 * s:.0f}" fill="#800f2f"/></g>'
    return svg(size, f'<path fill-rule="evenodd" fill="url(#blush)" d="{hole(size, win)}"/>'
               + scatter(size, win, 22, 60, 13, rose)
               + f'<rect x="{win[0] - 30}" y="{win[1] - 30}" width="{win[2] + 60}" height="{win[3] + 60}" rx="30" fill="none" stroke="#ffffff" stroke-width="8"/>'
               + text(size[0] / 2, size[1] - 120, "Pour toi", 110, "#800f2f", family="serif"), defs)


@frame("love", "lace", "Lace", LANDSCAPE, (190, 180, 1368, 880))
def _(size, win):
    x, y, w, h = win
    lace = []
    for i in range(x - 20, x + w + 40, 40):
        lace += [f'<circle cx="{i}" cy="{y - 28}" r="24"/>', f'<circle cx="{i}" cy="{y + h + 28}" r="24"/>']
    for j in range(y - 20, y + h + 40, 40):
        lace += [f'<circle cx="{x - 28}" cy="{j}" r="24"/>', f'<circle cx="{x + w + 28}" cy="{j}" r="24"/>']
    dots = "".join(f'<circle cx="{i}" cy="{j}" r="7"/>' for i in range(60, size[0], 48)
                   for j in range(60, size[1], 48) if outside(win, i, j, 60))
    return svg(size, f'<path fill-rule="evenodd" fill="#f8e1e7" d="{hole(size, win)}"/>'
               f'<g fill="#ffffff" opacity="0.9">{dots}</g>'
               f'<g fill="#ffffff" stroke="#e8b4c0" stroke-width="2">{"".join(lace)}</g>'
               f'<rect x="{x}" y="{y}" width="{w}" height="{h}" fill="none" stroke="#e8b4c0" stroke-width="0"/>')


def main():
    for f in FRAMES:
        folder = os.path.join(ROOT, f["theme"])
        os.makedirs(folder, exist_ok=True)
        size, win = f["size"], f["window"]
        body = f["draw"](size, win)
        with open(os.path.join(folder, f["name"] + ".svg"), "w", encoding="utf-8") as handle:
            handle.write(body)
        preview_width = 320
        k = preview_width / size[0]
        manifest = {
            "id": f"{f['theme']}/{f['name']}",
            "theme": f["theme"],
            "title": f["title"],
            "size": "a6",
            "orientation": "landscape" if size[0] > size[1] else "portrait",
            "art": f["name"] + ".svg",
            "window": {"x": win[0], "y": win[1], "width": win[2], "height": win[3]},
            "effect": f["effect"],
            "preview": {"width": preview_width, "height": round(size[1] * k),
                        "window": {"x": round(win[0] * k), "y": round(win[1] * k),
                                   "width": round(win[2] * k), "height": round(win[3] * k)}},
        }
        with open(os.path.join(folder, f["name"] + ".json"), "w", encoding="utf-8") as handle:
            json.dump(manifest, handle, indent=2, ensure_ascii=False)
            handle.write("\n")
    print(f"wrote {len(FRAMES)} frames under {os.path.normpath(ROOT)}")


if __name__ == "__main__":
    main()
