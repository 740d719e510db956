from benchmarks.translate_bench import main

main()
