"""``python -m mha.training`` (``make weights``): train every stored setting, write the files."""

from mha.training.store import main

if __name__ == "__main__":
    main()
