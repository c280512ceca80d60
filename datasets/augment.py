"""Photographic effects over a rendered scene: light, white balance, exposure, softness, noise and JPEG quality.

Phones and webcams blur a little, oversharpen, cast colour under lamps, burn out highlights
and show most noise in the shadows; these are what make a rendering read as a photo.
"""

from __future__ import annotations

import cv2
import numpy as np

# White-balance gains (B, G, R) that auto white balance leaves behind: neutral, tungsten, shade, fluorescent.
CASTS = ((1.0, 1.0, 1.0), (0.78, 0.95, 1.12), (1.1, 1.0, 0.9), (0.95, 1.06, 0.92))


def jpeg_quality(rng: np.random.Generator) -> int:
    """A JPEG quality like phones and webcams use: mostly 70-95, sometimes low enough to show blocks."""
    return int(rng.integers(30, 60) if rng.random() < 0.2 else rng.integers(70, 96))


def _gain(rng: np.random.Generator, h: int, w: int) -> np.ndarray:
    """Per-pixel light: a gradient across the frame times the lens vignette."""
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    gx, gy = rng.normal(0, 1, 2)
    light = 1 + rng.uniform(0.1, 0.45) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
    vignette = 1 - rng.uniform(0.05, 0.45) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    return cv2.resize(light * vignette, (w, h), interpolation=cv2.INTER_LINEAR)


def _optics(rng: np.random.Generator, out: np.ndarray) -> np.ndarray:
    """Motion or focus blur now and then, a phone's slight softness otherwise, often with oversharpening."""
    roll = rng.random()
    if roll < 0.15:
        length = int(rng.integers(3, 10))
        kernel = np.zeros((length, length), np.float32)
        cv2.line(kernel, (0, int(rng.integers(length))), (length - 1, int(rng.integers(length))), 1.0, 1)
        return cv2.filter2D(out, -1, kernel / kernel.sum())
    if roll < 0.35:
        return cv2.GaussianBlur(out, (0, 0), rng.uniform(1.0, 2.0))
    soft = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.4, 0.9))
    if rng.random() < 0.5:  # unsharp masking as phone pipelines do: halos at edges
        return cv2.addWeighted(soft, 1.6, cv2.GaussianBlur(soft, (0, 0), 1.5), -0.6, 0)
    return soft


def photograph(rng: np.random.Generator, image: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The scene as a phone or webcam would record it: uneven light, colour cast, blur and sensor noise; and each
    pixel's light, the gain of its dimmest channel, by which a glare too faint to burn out ink alone does so
    (``Scene.burnt``)."""
    h, w = image.shape[:2]
    cast = np.array(CASTS[rng.integers(len(CASTS))], np.float32) * rng.uniform(0.95, 1.05, 3).astype(np.float32)
    exposure = rng.uniform(0.75, 1.3)  # under- or over-exposed; bright cards on dark tables burn out
    gain = (_gain(rng, h, w) * exposure).astype(np.float32)
    light = gain * cast.min()
    out = cv2.multiply(image.astype(np.float32), cv2.merge([gain * c for c in cast]))
    out = _optics(rng, out)
    cv2.setRNGSeed(int(rng.integers(2**31)))  # OpenCV's generator is much faster than numpy's for full frames
    noise = np.empty((h, w, 3), np.float32)
    cv2.randn(noise, 0.0, float(rng.uniform(0.5, 3)))  # colour noise
    grain = np.empty((h, w), np.float32)
    cv2.randn(grain, 0.0, float(rng.uniform(1, 6)))  # luminance noise
    # Shadows are amplified most by the camera's gain, so noise grows where the picture is dark.
    small = cv2.resize(cv2.cvtColor(image, cv2.COLOR_BGR2GRAY), (w // 4, h // 4), interpolation=cv2.INTER_AREA)
    dark = cv2.resize(1.8 - 1.3 * np.minimum(1, small.astype(np.float32) / 255 * cv2.resize(gain, (w // 4, h // 4))),
                      (w, h), interpolation=cv2.INTER_LINEAR)
    noise = cv2.multiply(cv2.add(noise, cv2.merge([grain, grain, grain])), cv2.merge([dark, dark, dark]))
    return cv2.add(out, noise).clip(0, 255).astype(np.uint8), light
