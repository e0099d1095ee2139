export PATH=$PATH:/usr/local/cuda/bin; A=$PWD/target/release/accshare
mkdir -p $OUT/t; export ACCSHARE_CACHE_DIR=$OUT/t/cache
timeout 75 $A tune benches/five/gemm.c -I benches/five -DNI=1024 -DNJ=1024 -DNK=1024 -DREPS=1 --device cuda:0 --budget 40 --reps 3 > $OUT/t/gemm1k.tune.txt 2>&1
grep -E "^\s+\*|#1 " $OUT/t/gemm1k.tune.txt
CASES_FILE=benches/gpu/ncu-gemm.cases OUT=$OUT/gp ACCSHARE=$A NCU_CASES="gemm2k.micro4x4 gemm2k.micro8x8 gemm1k.tuned gemm1k.micro4x4" NCU_SECTIONS="SpeedOfLight Occupancy WarpStateStats ComputeWorkloadAnalysis InstructionStats MemoryWorkloadAnalysis" NCU_UNTIL=150 timeout 170 bash benches/gpu-programs.sh 2>&1 | tail -14
grep -E "^===|Duration|Stall|Warp Cycles Per Issued|Issued Ipc|Executed Ipc|Shared Memory|Bank" $OUT/gp/ncu.txt | head -80
rm -rf $OUT/t/cache
