# Session 12 call 3 (head split A/B at short contexts): k3v4, BLOCK_N 64,
# 8 warps, 3 stages, heads/CTA 2 and 4, splits 1,2,8,16, B=1 and 8, L=1K:
# default (head split on), TQ_HEAD_SPLIT=0, TQ_HEAD_SPLIT_HALF_MAJOR=1,
# back to back and --isolate.
tar xJf .carry/tqc-gpu.tar.xz -C /tmp; tqc=/tmp/tqc-gpu/tqc; T=$OUT/ab; mkdir -p $T
A="--arch native --preset k3v4 --buckets 1,8 --contexts 1024 --no-prune --block-n-candidates 64 --warps-candidates 8 --stages-candidates 3 --heads-candidates 2,4 --split-candidates 1,2,8,16"
run() { n=$1; shift; env "$@" $tqc autotune $A $X -o $T/$n.json --report $T/$n > $T/$n.txt 2>&1; echo "== $n exit $?"; }
X= run on TQC_DEVICE_DEFINES=
X= run off TQC_DEVICE_DEFINES=TQ_HEAD_SPLIT=0
X= run halfmajor TQC_DEVICE_DEFINES=TQ_HEAD_SPLIT_HALF_MAJOR=1
X=--isolate run on-iso TQC_DEVICE_DEFINES=
X=--isolate run off-iso TQC_DEVICE_DEFINES=TQ_HEAD_SPLIT=0
for n in on off halfmajor on-iso off-iso; do echo "== $n"; awk -F, 'NR>1{print $1, "("$2","$3","$4","$5","$6")", $9}' $T/$n/timings.csv | sort -k1n -k2 | paste - - - - ; done
