# The speed tail of exported PLY frames (`rillet run --export ply`): fluid particles faster than
# BOUND, their share of the kinetic energy, and the fastest one. Standard library only.
#   python3 docs/studies/speed_tail.py BOUND FRAME.ply...
import struct, sys, math, re
bound = float(sys.argv[1])
for path in sys.argv[2:]:
    with open(path, 'rb') as f:
        hdr = []
        while True:
            l = f.readline().decode().strip(); hdr.append(l)
            if l == 'end_header': break
        data = f.read()
    t = [l for l in hdr if l.startswith('comment')][0]
    n = over = 0; vmax = 0.0; ke = ke_over = 0.0; top = (0, 0, 0, 0, 0, 0)
    for x, y, z, vx, vy, vz, rho, p, pid, kind in struct.iter_unpack('<8fIB', data):
        if kind != 0: continue
        v2 = vx*vx + vy*vy + vz*vz; n += 1; ke += v2
        if v2 > bound*bound: over += 1; ke_over += v2
        if v2 > vmax*vmax: vmax = math.sqrt(v2); top = (x, y, z, vx, vy, vz)
    print('%s: %d fluid, %d above %.2f m/s (%.4f %%, %.3f %% of the kinetic energy), fastest %.2f m/s at (%.3f, %.3f, %.3f) v (%.2f, %.2f, %.2f)' % (t, n, over, bound, 100*over/n, 100*ke_over/max(ke,1e-30), vmax, *top))
