export PATH=$PATH:/usr/local/cuda/bin; A=$PWD/target/release/accshare
mkdir -p $OUT/t; export ACCSHARE_CACHE_DIR=$OUT/t/cache
CASES_FILE=benches/gpu/calibrate-gemm.cases OUT=$OUT/gp ACCSHARE=$A NCU_CASES="gemm2k.micro4x4 gemm2k.micro8x8 hotspot.a100 hotspot.naive gauss.h100" NCU_SECTIONS="SpeedOfLight Occupancy WarpStateStats ComputeWorkloadAnalysis InstructionStats" NCU_UNTIL=200 timeout 250 bash benches/gpu-programs.sh 2>&1 | tail -30
timeout 90 $A tune benches/five/gemm.c -I benches/five -DNI=1024 -DNJ=1024 -DNK=1024 -DREPS=1 --device cuda:0 --budget 40 --reps 3 > $OUT/t/gemm1k.tune.txt 2>&1
timeout 60 $A tune benches/five/gauss.c -I benches/five -DH=4096 -DW=4096 -DREPS=1 --device cuda:0 --budget 20 --reps 3 > $OUT/t/gauss.tune.txt 2>&1
head -30 $OUT/t/gemm1k.tune.txt; head -20 $OUT/t/gauss.tune.txt; rm -rf $OUT/t/cache
