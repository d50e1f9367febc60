"""``python -m mha.training`` (``make weights``): train every stored run, write the files."""

from mha.training.more import main

if __name__ == "__main__":
    main()
