"""The crop classifier's network and its training loop (torch; used only for training and export).

Hand-written rather than ultralytics' classifier: yolov8n-cls costs 0.35 GFLOPs per 64-pixel crop,
seven times this net, and ultralytics' trainer augments each crop with PIL in the training process
(7 ms a crop, measured here). This net costs 49 MFLOPs per crop at its default widths (22 at 16-32-64-128);
the crops stay in memory as one tensor, augmented a batch at a time.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np
import torch
from torch import nn
from torch.nn import functional

from oxeye.vision.crops import to_blob

WIDTHS = (24, 48, 96, 192)  # channels per stage; each stage halves the resolution, then refines once
DISTIL_TEMPERATURE = 2.0  # a teacher's logits are softened by this before the student copies them (Hinton et al.)
DISTIL_SHARE = 0.7  # and copying them weighs this much of the loss, the labels the rest


def _conv(cin: int, cout: int, stride: int) -> list[nn.Module]:
    return [nn.Conv2d(cin, cout, 3, stride, 1, bias=False), nn.BatchNorm2d(cout), nn.ReLU(inplace=True)]


def crop_net(classes: int, widths: tuple[int, ...] = WIDTHS) -> nn.Sequential:
    """Stride-2 stages of ``widths`` channels (four: 64 -> 4 pixels), each but the first refined by a second
    convolution, then global average pooling and one linear layer: logits."""
    layers: list[nn.Module] = []
    cin = 3
    for stage, width in enumerate(widths):
        layers += _conv(cin, width, 2) + (_conv(width, width, 1) if stage else [])
        cin = width
    return nn.Sequential(*layers, nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(cin, classes))


def stage_widths(model: nn.Module) -> tuple[int, ...]:
    """The channels of each of a ``crop_net``'s stages (its stride-2 convolutions), saved beside its weights."""
    return tuple(layer.out_channels for layer in model.modules() if isinstance(layer, nn.Conv2d) and layer.stride == (2, 2))


@torch.no_grad()
def narrowed(model: nn.Sequential, widths: tuple[int, ...]) -> nn.Sequential:
    """A ``crop_net`` of ``widths`` holding ``model``'s strongest channels: each convolution keeps the outputs
    its batch norm scales most (as network slimming prunes), and the layers after it their inputs. Taught on
    from there, a narrower network starts from what the wide one learnt rather than from nothing."""
    stages = stage_widths(model)
    if len(widths) != len(stages) or any(not 1 <= new <= old for new, old in zip(widths, stages)):
        raise ValueError(f"--widths {','.join(map(str, widths))} cannot narrow a network of widths "
                         f"{','.join(map(str, stages))}: as many stages, none wider")
    narrow = crop_net(model[-1].out_features, widths)
    kept = torch.arange(3)  # the input's colours
    for old, new in zip(model, narrow):
        if isinstance(old, nn.Conv2d):  # its outputs are chosen at the batch norm after it
            inputs_kept, convolution = old.weight[:, kept], new
        elif isinstance(old, nn.BatchNorm2d):
            kept = old.weight.abs().argsort(descending=True)[:new.num_features].sort().values
            convolution.weight.copy_(inputs_kept[kept])
            for name in ("weight", "bias", "running_mean", "running_var"):
                getattr(new, name).copy_(getattr(old, name)[kept])
        elif isinstance(old, nn.Linear):
            new.weight.copy_(old.weight[:, kept])
            new.bias.copy_(old.bias)
    return narrow


def augment(batch: torch.Tensor, generator: torch.Generator) -> torch.Tensor:
    """Per crop: a small rotation, scale and shift (a detector's box is never exact), colour and
    contrast as a camera varies them, and sensor noise. ``batch`` is float RGB NCHW in [0, 1]."""
    n = batch.shape[0]

    def uniform(low: float, high: float, *shape: int) -> torch.Tensor:
        return torch.rand(n, *shape, generator=generator, device=generator.device) * (high - low) + low

    angle = uniform(-math.pi / 18, math.pi / 18)
    scale = uniform(0.9, 1.1)
    cos, sin = torch.cos(angle) / scale, torch.sin(angle) / scale
    theta = torch.stack([torch.stack([cos, -sin, uniform(-0.06, 0.06)], 1),
                         torch.stack([sin, cos, uniform(-0.06, 0.06)], 1)], 1)
    grid = functional.affine_grid(theta, list(batch.shape), align_corners=False)
    moved = functional.grid_sample(batch, grid, padding_mode="border", align_corners=False)
    mean = moved.mean(dim=(1, 2, 3), keepdim=True)
    toned = (moved - mean) * uniform(0.6, 1.4, 1, 1, 1) + mean * uniform(0.6, 1.3, 1, 1, 1)
    toned = toned * uniform(0.85, 1.15, 3, 1, 1)  # white balance
    noisy = toned + torch.randn(toned.shape, generator=generator, device=generator.device) * uniform(0.0, 0.04, 1, 1, 1)
    return noisy.clamp(0.0, 1.0)


def to_tensor(images: np.ndarray) -> torch.Tensor:
    """BGR uint8 NHWC crops as the network takes them: ``vision.crops.to_blob``, which serving uses too."""
    return torch.from_numpy(to_blob(images))


def distilled_loss(logits: torch.Tensor, targets: torch.Tensor, taught: torch.Tensor | None) -> torch.Tensor:
    """Cross-entropy with label smoothing against the labels; with a teacher's logits ``taught`` for the same
    crops, blended with the divergence from its softened probabilities (``DISTIL_SHARE``, ``DISTIL_TEMPERATURE``),
    which tells a small network which wrong classes a crop resembles as well as which is right."""
    labelled = functional.cross_entropy(logits, targets, label_smoothing=0.05)
    if taught is None:
        return labelled
    heat = DISTIL_TEMPERATURE
    copied = functional.kl_div(functional.log_softmax(logits / heat, dim=1), functional.log_softmax(taught / heat, dim=1),
                               log_target=True, reduction="batchmean") * heat * heat
    return DISTIL_SHARE * copied + (1 - DISTIL_SHARE) * labelled


def fit(model: nn.Module, images: np.ndarray, labels: np.ndarray, epochs: int, batch: int, seed: int,
        progress: Callable[[float], object] | None = None, teacher: nn.Module | None = None) -> list[float]:
    """Train with AdamW on a one-cycle schedule and label smoothing (and from ``teacher``'s readings of the same
    augmented crops, when given: ``distilled_loss``), on a CUDA GPU where there is one (the model is handed back
    on the CPU); returns the mean loss per epoch, each also given to ``progress`` as its epoch ends."""
    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")
    model.to(device)
    if teacher is not None:
        teacher.to(device).eval()
    generator = torch.Generator(device=device).manual_seed(seed)
    optimiser = torch.optim.AdamW(model.parameters(), lr=3e-3, weight_decay=5e-4)
    steps = epochs * math.ceil(len(images) / batch)
    schedule = torch.optim.lr_scheduler.OneCycleLR(optimiser, max_lr=3e-3, total_steps=steps, pct_start=0.15)
    targets = torch.from_numpy(labels).long().to(device)
    losses = []
    for _ in range(epochs):
        model.train()
        order = torch.randperm(len(images), generator=generator, device=device)
        total = 0.0
        for start in range(0, len(images), batch):
            chosen = order[start:start + batch]
            inputs = augment(to_tensor(images[chosen.cpu().numpy()]).to(device), generator)
            with torch.no_grad():
                taught = teacher(inputs) if teacher is not None else None
            loss = distilled_loss(model(inputs), targets[chosen], taught)
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(chosen)
        losses.append(total / len(images))
        if progress is not None:
            progress(losses[-1])
    model.cpu()
    if teacher is not None:
        teacher.cpu()
    return losses


@torch.no_grad()
def accuracy(model: nn.Module, images: np.ndarray, labels: np.ndarray, batch: int = 512) -> float:
    """Top-1 accuracy on un-augmented crops."""
    model.eval()
    right = 0
    for start in range(0, len(images), batch):
        predicted = model(to_tensor(images[start:start + batch])).argmax(dim=1).numpy()
        right += int((predicted == labels[start:start + batch]).sum())
    return right / max(len(images), 1)
