# Session 12 call 4 (ff3da04 kernels = e2c7288's, new k3v4/k4v4 database):
# the decode bench of k3v4 and k4v4 on the shipped database (issue 6/9's table).
[ -d .carry/googletest ] || tar xf .carry/googletest.tgz -C .carry
rm -rf /tmp/ge; G="bash scripts/gpu-eval.sh .carry/tqc-gpu.tar.xz $PWD/.carry/googletest /tmp/ge"
DECODE_PRESETS="k3v4 k4v4" timeout 200 $G decode
cp /tmp/ge/decode.txt /tmp/ge/decode.json /tmp/ge/log.txt $OUT/ 2>/dev/null; cat /tmp/ge/decode.txt | tail -40
