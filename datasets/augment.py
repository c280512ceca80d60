"""Photographic effects over a rendered scene: light, white balance, blur, noise (JPEG comes at writing)."""

from __future__ import annotations

import cv2
import numpy as np


def photograph(rng: np.random.Generator, image: np.ndarray) -> np.ndarray:
    """The scene as a phone or webcam would record it: uneven light, colour cast, blur and sensor noise."""
    h, w = image.shape[:2]
    yy, xx = np.mgrid[0:h:8, 0:w:8].astype(np.float32)
    gx, gy = rng.normal(0, 1, 2)
    light = 1 + rng.uniform(0.1, 0.45) * ((xx / w - 0.5) * gx + (yy / h - 0.5) * gy)
    vignette = 1 - rng.uniform(0, 0.35) * (((xx / w - 0.5) ** 2 + (yy / h - 0.5) ** 2) * 2)
    gain = cv2.resize(light * vignette, (w, h), interpolation=cv2.INTER_LINEAR)
    balance = rng.uniform(0.82, 1.15, 3).astype(np.float32) * rng.uniform(0.75, 1.15)
    out = image.astype(np.float32) * gain[..., None] * balance
    roll = rng.random()
    if roll < 0.2:
        length = int(rng.integers(3, 10))
        kernel = np.zeros((length, length), np.float32)
        cv2.line(kernel, (0, int(rng.integers(length))), (length - 1, int(rng.integers(length))), 1.0, 1)
        out = cv2.filter2D(out, -1, kernel / kernel.sum())
    elif roll < 0.5:
        out = cv2.GaussianBlur(out, (0, 0), rng.uniform(0.5, 1.6))
    cv2.setRNGSeed(int(rng.integers(2**31)))  # OpenCV's generator is much faster than numpy's for full frames
    grain = np.empty((h, w), np.float32)
    cv2.randn(grain, 0.0, float(rng.uniform(1, 7)))
    colour_noise = np.empty((h, w, 3), np.float32)
    cv2.randn(colour_noise, 0.0, float(rng.uniform(0.5, 3)))
    out += grain[..., None] + colour_noise
    return np.clip(out, 0, 255).astype(np.uint8)
