"""The most items of a generated build that any detector could report through class-aware
suppression at a given IoU: the ceiling that suppression alone puts on per-item accuracy.

Two true items of one kind whose boxes (of their visible pixels, as labelled and as the detector
learns them) overlap at the IoU or more cannot both stand, however well each is found; per photo,
the largest set of items no two of which overlap so (exact, over each cluster of such overlaps) is
what could survive. No model is read. Run:
python -m bench.nms_ceiling runs/heldout 0.6 0.7 0.8 0.9
"""

from __future__ import annotations

import argparse
import itertools
import json
from pathlib import Path

import networkx as nx
import numpy as np

from oxeye.vision.cli import build_folder, real_number
from oxeye.vision.decode import iou_matrix


def lost_to_suppression(items: list[dict], iou: float) -> int:
    """How many of a photo's labelled items no suppression at ``iou`` could leave standing together."""
    boxes = np.array([item["box"] for item in items], np.float64).reshape(-1, 4)
    overlaps = iou_matrix(boxes, boxes)
    clashes = nx.Graph()
    clashes.add_edges_from((i, j) for i, j in itertools.combinations(range(len(items)), 2)
                           if items[i]["kind"] == items[j]["kind"] and overlaps[i, j] >= iou)
    lost = 0
    for cluster in nx.connected_components(clashes):
        # The largest set with no clash is the largest clique of the complement: clusters are a few fanned cards.
        standing = max(len(clique) for clique in nx.find_cliques(nx.complement(clashes.subgraph(cluster))))
        lost += len(cluster) - standing
    return lost


def ceiling(data: Path, iou: float) -> dict[str, float | int]:
    """The build's items, those lost to suppression at ``iou``, and the share that could be read."""
    items = lost = 0
    for path in sorted((data / "meta").glob("*.json")):
        labelled = json.loads(path.read_text())["items"]
        items += len(labelled)
        lost += lost_to_suppression(labelled, iou)
    return {"iou": iou, "items": items, "lost": lost, "ceiling": 1 - lost / max(items, 1)}


def main(argv: list[str] | None = None) -> list[dict[str, float | int]]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("data", type=build_folder, help="a folder written by 'oxeye dataset build'")
    parser.add_argument("ious", type=real_number, nargs="+", help="suppression IoUs to try")
    args = parser.parse_args(argv)
    results = [ceiling(args.data, iou) for iou in args.ious]
    for result in results:
        print(json.dumps(result))
    return results


if __name__ == "__main__":
    main()
