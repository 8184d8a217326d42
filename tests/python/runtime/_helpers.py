"""Shared helpers (importable by multiprocessing spawn children)."""


def fake_timer(table):
    """Timer returning table[config['id']] ms; still honours restore-before-every-launch."""

    def timer(launch, restore, config):
        restore()
        launch()  # warm-up
        out = []
        for _ in range(2):
            restore()
            launch()
            out.append(float(table[config["id"]]))
        return out

    return timer


def mp_worker(path, table, barrier, queue):
    import torch
    from intent_runtime import JsonFileStore, TunedKernel

    def run(cfg, args):
        x, y = args
        y.copy_(x * cfg["id"])

    k = TunedKernel("scale", "artifact-mp", [{"id": i} for i in range(1, 4)], run,
                    ["in", "out"], store=JsonFileStore(path), timer=fake_timer(table))
    x = torch.ones(8)
    y = torch.empty(8)
    barrier.wait(timeout=60)
    w = k.prepare(x, y)
    queue.put(w["id"])
