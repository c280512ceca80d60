"""`python -m bench`: run every benchmark."""

from bench.dataset_speed import main

if __name__ == "__main__":
    main()
