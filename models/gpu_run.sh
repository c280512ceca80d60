#!/bin/bash
# The detector's training as one call of a lent GPU machine (MODEL_CARD.md, Not done): install the
# carried wheels (`make device-wheels`), build photos from the carried decks, train the pose detector
# for the time left before TRAIN_END, export, and leave oxeye.pt, oxeye.onnx, results.csv and
# train.log under $OUT. Run from the checkout's root, carrying .whl and data/decks:
#   OUT=$OUT bash models/gpu_run.sh          (one call, timeout_s 570; 455 s on an H200, whose build
#                                            takes 94 s; an H100's takes 114 s, its epochs 11 s against 8)
# A guard brings back the best weights so far where training outruns GUARD. The variables below
# scale it down for a rehearsal on a CPU (e.g. IMAGES=40 WORKERS=2 TRAIN_END=40 BATCH=8), and choose:
#   DET_MODEL  the detector's start, a .pt (carried) or .yaml; yolov8n-pose from nothing when unset
#   LR0        its starting rate (ultralytics chooses when unset)
#   CLS_EPOCHS train the crop classifier too, beside the detector on the same photos, from
#              CLS_MODEL (models/oxeye-cls.pt) with CLS_PER_CLASS crops a class: oxeye-cls.pt/.onnx;
#              CLS_ARGS adds train-classifier options (e.g. "--widths 16,32,64,128 --teacher models/oxeye-cls.pt")
#   REUSE=1    a second call on the warm machine trains on the first call's photos (RUN names its run)
#   BOXES      the build's --boxes (visible; main boxes a tucked card by the part that shows)
#   IMGSZ      the detector's training input size (320, as it has always learnt; 416 is what serves)
set -u
T0=$SECONDS
IMAGES=${IMAGES:-8000}; WORKERS=${WORKERS:-16}; TRAIN_END=${TRAIN_END:-455}; GUARD=${GUARD:-530}
BATCH=${BATCH:-64}; IMGSZ_BUILD=${IMGSZ_BUILD:-1280}; SITE=${SITE:-/tmp/site}; WORK=${WORK:-/tmp}
SEED=${SEED:-11}; RUN=${RUN:-r}; CLS_EPOCHS=${CLS_EPOCHS:-0}; CLS_MODEL=${CLS_MODEL:-models/oxeye-cls.pt}
CLS_PER_CLASS=${CLS_PER_CLASS:-6000}; BOXES=${BOXES:-visible}; IMGSZ=${IMGSZ:-320}
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target $SITE .whl/*.whl || exit 9
export PYTHONPATH=$SITE PATH=$SITE/bin:$PATH PYTHONUNBUFFERED=1
nvidia-smi -L 2>/dev/null; echo "cores $(nproc)"
python3 -c "import torch, ultralytics, oxeye.vision.train; print('torch', torch.__version__, 'cuda', torch.cuda.is_available())" || exit 8
if [ "${REUSE:-0}" = 1 ] && [ -d $WORK/b/meta ]; then echo "reusing $(ls $WORK/b/meta | wc -l) photos"; else
  oxeye dataset build --out $WORK/b --images $IMAGES --seed $SEED --imgsz $IMGSZ_BUILD --decks data/decks \
      --boxes $BOXES --workers $WORKERS > $WORK/build.log 2>&1 || { tail -c 3000 $WORK/build.log; exit 7; }
  tail -c 300 $WORK/build.log; echo; echo "built at $((SECONDS-T0)) s"
fi
if (( CLS_EPOCHS > 0 )); then
  oxeye train-classifier --data $WORK/b --out $WORK/c$RUN --epochs $CLS_EPOCHS --batch 512 \
      --per-class $CLS_PER_CLASS --seed $SEED --model $CLS_MODEL ${CLS_ARGS:-} > $WORK/cls.log 2>&1 &
  cls=$!
fi
# ultralytics' clock starts after the photos are cached (about 30 s); the export follows it
hours=$(python3 -c "print(max(0.002, round(($TRAIN_END - $((SECONDS-T0)) - 30) / 3600, 4)))")
echo "training for $hours h"
oxeye train --data $WORK/b --out $WORK/$RUN --labels pose --imgsz $IMGSZ ${DET_MODEL:+--model $DET_MODEL} ${LR0:+--lr0 $LR0} \
    --val-fraction 0.03 --cache --batch $BATCH --workers $((WORKERS > 2 ? WORKERS - 2 : 1)) --epochs 80 --hours $hours > $WORK/train.log 2>&1 &
pid=$!
while kill -0 $pid 2>/dev/null && (( SECONDS-T0 < GUARD )); do sleep 3; done
kill -0 $pid 2>/dev/null && echo "GUARD: training still running at $((SECONDS-T0)) s"
echo "train ended at $((SECONDS-T0)) s"
tr '\r' '\n' < $WORK/train.log | grep -v '^ *$' | tail -c 150000 > $OUT/train.log
tail -c 3000 $OUT/train.log
cp $WORK/$RUN/oxeye.pt $WORK/$RUN/oxeye.onnx $WORK/$RUN/train/results.csv $OUT/ 2>/dev/null
if [ ! -f $OUT/oxeye.pt ]; then
  w=$WORK/$RUN/train/weights/best.pt; [ -f $w ] || w=$WORK/$RUN/train/weights/last.pt
  python3 -c "from oxeye.vision.offline import ultralytics_offline as u; u()
from ultralytics.utils.torch_utils import strip_optimizer as s; s('$w', '$OUT/best-stripped.pt')"
fi
if (( CLS_EPOCHS > 0 )); then
  while kill -0 $cls 2>/dev/null && (( SECONDS-T0 < GUARD + 15 )); do sleep 3; done
  tr '\r' '\n' < $WORK/cls.log | grep -v '^ *$' | tail -c 2000 | tee $OUT/cls.log
  cp $WORK/c$RUN/oxeye-cls.pt $WORK/c$RUN/oxeye-cls.onnx $OUT/ 2>/dev/null
fi
# A returned file holds at most 16 MiB, and all of them 64: a larger .pt (a small "s" detector's is 23 MB)
# comes back in 15 MiB parts (join them: cat oxeye.pt.part* > oxeye.pt), a larger ONNX (46 MB) not at all
# (export it again from the .pt back here, as vision.train.export does: its outputs equal this machine's).
for f in $OUT/*; do
  (( $(stat -c %s "$f") > 15728640 )) || continue
  case $f in
    *.onnx) rm "$f"; echo "left $(basename "$f") behind, over what a call returns: export it again from the .pt" ;;
    *) split -b 15M -d -a 1 "$f" "$f.part" && rm "$f" && echo "split $(basename "$f") into $(ls "$f".part* | wc -l) parts" ;;
  esac
done
ls -la $OUT; echo "done at $((SECONDS-T0)) s"
