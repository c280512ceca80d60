#!/bin/bash
# The detector's training as one call of a lent GPU machine (MODEL_CARD.md, Not done): install the
# carried wheels (`make device-wheels`), build photos from the carried decks, train the pose detector
# from nothing for the time left before TRAIN_END, export, and leave oxeye.pt, oxeye.onnx,
# results.csv and train.log under $OUT. Run from the checkout's root, carrying .whl and data/decks:
#   OUT=$OUT bash models/gpu_run.sh          (one call, timeout_s 570; 455 s on an H200)
# A guard brings back the best weights so far where training outruns GUARD. The variables below
# scale it down for a rehearsal on a CPU (e.g. IMAGES=40 WORKERS=2 TRAIN_END=40 BATCH=8).
set -u
T0=$SECONDS
IMAGES=${IMAGES:-8000}; WORKERS=${WORKERS:-16}; TRAIN_END=${TRAIN_END:-455}; GUARD=${GUARD:-530}
BATCH=${BATCH:-64}; IMGSZ_BUILD=${IMGSZ_BUILD:-1280}; SITE=${SITE:-/tmp/site}; WORK=${WORK:-/tmp}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target $SITE .whl/*.whl || exit 9
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi -L 2>/dev/null; echo "cores $(nproc)"
python3 -c "import torch, ultralytics, oxeye.vision.train; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || exit 8
oxeye dataset build --out $WORK/b --images $IMAGES --seed 11 --imgsz $IMGSZ_BUILD --decks data/decks \
    --workers $WORKERS > $WORK/build.log 2>&1 || { tail -c 3000 $WORK/build.log; exit 7; }
tail -c 300 $WORK/build.log; echo; echo "built at $((SECONDS-T0)) s"
# ultralytics' clock starts after the photos are cached (about 30 s); the export follows it
hours=$(python3 -c "print(max(0.002, round(($TRAIN_END - $((SECONDS-T0)) - 30) / 3600, 4)))")
echo "training for $hours h"
oxeye train --data $WORK/b --out $WORK/r --labels pose --val-fraction 0.03 --cache --batch $BATCH \
    --workers $((WORKERS > 2 ? WORKERS - 2 : 1)) --epochs 80 --hours $hours > $WORK/train.log 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && (( SECONDS-T0 < GUARD )); do sleep 3; done
kill -0 $pid 2>/dev/null && echo "GUARD: training still running at $((SECONDS-T0)) s"
echo "train ended at $((SECONDS-T0)) s"
tr '\r' '\n' < $WORK/train.log | grep -v '^ *$' | tail -c 150000 > $OUT/train.log
tail -c 3000 $OUT/train.log
cp $WORK/r/oxeye.pt $WORK/r/oxeye.onnx $WORK/r/train/results.csv $OUT/ 2>/dev/null
if [ ! -f $OUT/oxeye.pt ]; then
  w=$WORK/r/train/weights/best.pt; [ -f $w ] || w=$WORK/r/train/weights/last.pt
  python3 -c "from oxeye.vision.offline import ultralytics_offline as u; u()
from ultralytics.utils.torch_utils import strip_optimizer as s; s('$w', '$OUT/best-stripped.pt')"
fi
ls -la $OUT; echo "done at $((SECONDS-T0)) s"
