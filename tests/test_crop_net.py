"""The crop classifier's network and training loop on constructed crops (torch, a few seconds)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from oxeye.vision.crop_net import accuracy, augment, crop_net, fit, to_tensor  # noqa: E402


def _crops(count: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Three classes a glance tells apart: a bar across the top, a bar down the left, or none."""
    rng = np.random.default_rng(seed)
    images = rng.integers(90, 140, size=(count, 32, 32, 3), dtype=np.uint8)
    labels = np.arange(count) % 3
    images[labels == 1, 4:10, 4:28] = 250
    images[labels == 2, 4:28, 4:10] = 250
    return images, labels


def test_the_net_maps_a_batch_of_crops_to_one_score_per_class() -> None:
    net = crop_net(74).eval()
    assert net(torch.zeros(5, 3, 64, 64)).shape == (5, 74) and net(torch.zeros(2, 3, 32, 32)).shape == (2, 74)


def test_augmentation_keeps_shape_and_range_and_changes_pixels() -> None:
    batch = to_tensor(_crops(8, 0)[0])
    moved = augment(batch, torch.Generator().manual_seed(1))
    assert moved.shape == batch.shape and 0.0 <= moved.min() and moved.max() <= 1.0
    assert not torch.allclose(moved, batch)
    assert torch.equal(moved, augment(batch, torch.Generator().manual_seed(1)))  # seeded: repeatable


def test_training_learns_what_it_is_shown_and_generalises_to_fresh_crops() -> None:
    torch.manual_seed(0)
    net = crop_net(3)
    images, labels = _crops(240, 1)
    losses = fit(net, images, labels, epochs=6, batch=32, seed=2)
    assert losses[-1] < losses[0]
    fresh, fresh_labels = _crops(60, 3)
    assert accuracy(net, fresh, fresh_labels) >= 0.95
