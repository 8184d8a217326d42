"""Random well-typed KIR kernels over rows (for differential testing against the reference).

`generate(seed)` returns KIR text for one kernel `@rk`: inputs x [M, N] f32 (and, by chance, an f16
matrix, a row vector [M], a column vector [N], a scalar), then 2-9 random steps over pools of
[M, N], [M] and [N] f32 values (unary and binary pointwise, scalar operands, reductions along N,
reductions along M, broadcasts back, scans along N), stored to y [M, N] (sometimes as f16) and sometimes z [M] and w [N].
Every kernel verifies; whether the Triton provider realizes its structure is for the compiler to say.
"""
import random

T2 = "!kir.tensor<f32, [M, N]>"
T1 = "!kir.tensor<f32, [M]>"
TN = "!kir.tensor<f32, [N]>"
UNARY = ["neg", "abs", "exp", "tanh", "sigmoid", "sin"]
BINARY = ["add", "sub", "mul", "max", "min"]
REDUCE = ["add", "max", "min"]


def generate(seed):
    rng = random.Random(seed)
    args = ["%x: !kir.view<f32, [M, N], in>"]
    body = ["%x0 = kir.load %x : !kir.view<f32, [M, N], in>"]
    pool2, pool1, poolN = ["%x0"], [], []
    counter = [0]

    def fresh():
        counter[0] += 1
        return "%v" + str(counter[0])

    if rng.random() < 0.4:
        args.append("%h: !kir.view<f16, [M, N], in>")
        body.append("%h0 = kir.load %h : !kir.view<f16, [M, N], in>")
        body.append(f"%h1 = kir.cast %h0 : !kir.tensor<f16, [M, N]> to {T2}")
        pool2.append("%h1")
    if rng.random() < 0.4:
        args.append("%r: !kir.view<f32, [M], in>")
        body.append("%r0 = kir.load %r : !kir.view<f32, [M], in>")
        pool1.append("%r0")
    if rng.random() < 0.4:
        args.append("%c: !kir.view<f32, [N], in>")
        body.append("%c0 = kir.load %c : !kir.view<f32, [N], in>")
        body.append(f"%c1 = kir.broadcast %c0 dims [1] : !kir.tensor<f32, [N]> to {T2}")
        pool2.append("%c1")
        poolN.append("%c0")
    scalar = rng.random() < 0.3
    if scalar:
        args.append("%alpha: f32")

    # kind -> (operand pool, result pool, op text from the chosen operands)
    steps = {
        "unary2": (pool2, pool2, lambda a, b: f"kir.{rng.choice(UNARY)} {a} : {T2}"),
        "binary2": (pool2, pool2, lambda a, b: f"kir.{rng.choice(BINARY)} {a}, {b} : {T2}"),
        "scalar2": (pool2, pool2, lambda a, b: f"kir.{rng.choice(['add', 'mul'])} {a}, %alpha : {T2}, f32"),
        "reduce": (pool2, pool1, lambda a, b: f"kir.reduce {rng.choice(REDUCE)} {a} dims [1] : {T2} to {T1}"),
        "scan": (pool2, pool2, lambda a, b: f"kir.scan add {a} dim 1{scan_flags()} : {T2}"),
        "bcast": (pool1, pool2, lambda a, b: f"kir.broadcast {a} dims [0] : {T1} to {T2}"),
        "unary1": (pool1, pool1, lambda a, b: f"kir.{rng.choice(UNARY)} {a} : {T1}"),
        "binary1": (pool1, pool1, lambda a, b: f"kir.{rng.choice(BINARY)} {a}, {b} : {T1}"),
        "reduce0": (pool2, poolN, lambda a, b: f"kir.reduce {rng.choice(REDUCE)} {a} dims [0] : {T2} to {TN}"),
        "unaryN": (poolN, poolN, lambda a, b: f"kir.{rng.choice(UNARY)} {a} : {TN}"),
        "bcastN": (poolN, pool2, lambda a, b: f"kir.broadcast {a} dims [1] : {TN} to {T2}"),
    }

    def scan_flags():
        return "".join(f for f, p in ((" exclusive", 0.3), (" reverse", 0.3)) if rng.random() < p)

    for _ in range(rng.randint(2, 9)):
        choices = ["unary2", "binary2", "reduce", "scan", "reduce0"]
        if scalar:
            choices.append("scalar2")
        if pool1:
            choices += ["bcast", "bcast", "unary1", "binary1"]
        if poolN:
            choices += ["unaryN", "bcastN"]
        src, dst, text = steps[rng.choice(choices)]
        v = fresh()
        body.append(f"{v} = " + text(rng.choice(src), rng.choice(src)))
        dst.append(v)

    if rng.random() < 0.25:
        args.append("%y: !kir.view<f16, [M, N], out>")
        body.append(f"%y16 = kir.cast {pool2[-1]} : {T2} to !kir.tensor<f16, [M, N]>")
        body.append("kir.store %y16, %y : !kir.view<f16, [M, N], out>")
    else:
        args.append("%y: !kir.view<f32, [M, N], out>")
        body.append(f"kir.store {pool2[-1]}, %y : !kir.view<f32, [M, N], out>")
    if pool1 and rng.random() < 0.5:
        args.append("%z: !kir.view<f32, [M], out>")
        body.append(f"kir.store {pool1[-1]}, %z : !kir.view<f32, [M], out>")
    if poolN and rng.random() < 0.5:
        args.append("%w: !kir.view<f32, [N], out>")
        body.append(f"kir.store {poolN[-1]}, %w : !kir.view<f32, [N], out>")
    lines = ["// random kernel, seed %d" % seed, "module {", "  kir.kernel @rk(" + ", ".join(args) + ") {"]
    lines += ["    " + b for b in body]
    lines += ["  }", "}", ""]
    return "\n".join(lines)


if __name__ == "__main__":
    import sys

    print(generate(int(sys.argv[1]) if len(sys.argv) > 1 else 0))
