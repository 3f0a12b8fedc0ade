# The README's two commands:
#   make run   - install dependencies, build, compile the default preset for sm_90
#   make test  - install dependencies, build, run every test (ctest)
BUILD ?= build
JOBS ?= $(shell nproc)
ARCH ?= sm_90
PRESET ?= k3v4

.PHONY: deps configure build run test clean

deps:
	./scripts/install-deps.sh

configure: deps
	cmake -S . -B $(BUILD) -G Ninja -DCMAKE_BUILD_TYPE=Release

build: configure
	cmake --build $(BUILD) -j $(JOBS)

run: build
	./$(BUILD)/bin/tqc --arch $(ARCH) --preset $(PRESET) -o out/$(PRESET)-$(ARCH)

test: build
	cd $(BUILD) && ctest --output-on-failure -j $(JOBS)

clean:
	rm -rf $(BUILD) out
