"""The crop classifier's network and training loop on constructed crops (torch, a few seconds)."""

from __future__ import annotations

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the train extra (torch) is not installed")

from oxeye.vision.crop_net import (DISTIL_SHARE, accuracy, augment, crop_net, distilled_loss, fit,  # noqa: E402
                                   narrowed, stage_widths, to_tensor)


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


def test_a_network_may_be_narrower_and_says_its_widths() -> None:
    net = crop_net(5, (8, 16, 16, 32)).eval()
    assert stage_widths(net) == (8, 16, 16, 32) and stage_widths(crop_net(5)) == (24, 48, 96, 192)
    assert net(torch.zeros(2, 3, 64, 64)).shape == (2, 5)


def _trained_wide() -> torch.nn.Sequential:
    """A network whose batch norms have learnt scales of their own (fresh, all are 1)."""
    torch.manual_seed(0)
    net = crop_net(3, (8, 16, 16, 32))
    fit(net, *_crops(120, 1), epochs=2, batch=32, seed=2)
    return net.eval()


def test_narrowing_keeps_the_channels_each_batch_norm_scales_most() -> None:
    wide = _trained_wide()
    crops = to_tensor(_crops(12, 4)[0])
    assert torch.allclose(narrowed(wide, (8, 16, 16, 32)).eval()(crops), wide(crops), atol=1e-5)  # all kept: the same
    narrow = narrowed(wide, (4, 8, 8, 16)).eval()
    assert stage_widths(narrow) == (4, 8, 8, 16) and narrow(crops).shape == (12, 3)
    strongest = wide[1].weight.abs().argsort(descending=True)[:4].sort().values
    assert torch.equal(narrow[0].weight, wide[0].weight[strongest]) and torch.equal(narrow[1].bias, wide[1].bias[strongest])
    second = wide[4].weight.abs().argsort(descending=True)[:8].sort().values  # the next layer: outputs and inputs kept
    assert torch.equal(narrow[3].weight, wide[3].weight[second][:, strongest])
    # Two stages of one width may be narrowed to two widths: each layer keeps as many as its own stage's.
    uneven = narrowed(wide, (4, 8, 12, 16)).eval()
    assert stage_widths(uneven) == (4, 8, 12, 16) and uneven(crops).shape == (12, 3)


@pytest.mark.parametrize("widths", [(8, 16, 16, 64), (4, 8, 8)])
def test_narrowing_refuses_a_wider_layer_or_another_number_of_stages(widths: tuple[int, ...]) -> None:
    with pytest.raises(ValueError, match="cannot narrow a network of widths 8,16,16,32"):
        narrowed(crop_net(3, (8, 16, 16, 32)), widths)


def test_a_student_copying_its_teacher_exactly_pays_only_for_the_labels() -> None:
    logits = torch.tensor([[2.0, 0.5, -1.0], [0.0, 3.0, 0.2]])
    targets = torch.tensor([0, 1])
    alone = distilled_loss(logits, targets, None)
    assert torch.isclose(distilled_loss(logits, targets, logits), (1 - DISTIL_SHARE) * alone)  # copying costs 0
    assert distilled_loss(logits, targets, logits.flip(1)) > distilled_loss(logits, targets, logits)


def test_a_narrow_student_learns_from_its_teacher_and_the_labels() -> None:
    teacher = _trained_wide()
    student = narrowed(teacher, (4, 8, 8, 16))
    losses = fit(student, *_crops(240, 5), epochs=4, batch=32, seed=6, teacher=teacher)
    assert losses[-1] < losses[0] and not teacher.training  # the teacher is read, never taught
    fresh, fresh_labels = _crops(60, 3)
    assert accuracy(student, fresh, fresh_labels) >= 0.95
