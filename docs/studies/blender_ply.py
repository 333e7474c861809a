# What Blender keeps of a Rillet PLY frame (docs/OUTPUTS.md, "In Blender"). With the `bpy` module
# of PyPI (bpy 4.5.15 or 5.0.1, Python 3.11):
#   rillet run scenes/small_drop.ron --steps 20 --every 20 --export ply --export-every 20 --export-up z --out DIR
#   python blender_ply.py DIR/particles/particles-00000000.ply
import sys

import bpy
import numpy as np

path = sys.argv[-1]
bpy.ops.wm.read_factory_settings(use_empty=True)
bpy.ops.wm.ply_import(filepath=path)
obj = bpy.context.selected_objects[0]
mesh = obj.data
n = len(mesh.vertices)
print("blender", bpy.app.version_string, "file", path, "points", n)
for a in mesh.attributes:
    if a.domain == "POINT":
        print("attribute", a.name, a.data_type)
co = np.zeros(n * 3)
mesh.vertices.foreach_get("co", co)
co = co.reshape(-1, 3)
print("z from", co[:, 2].min(), "to", co[:, 2].max(), "; object matrix identity:",
      np.allclose(np.array(obj.matrix_world), np.eye(4)))
ids = np.zeros(n)
mesh.attributes["particle_id"].data.foreach_get("value", ids)
print("particle_id from", ids.min(), "to", ids.max(), "unique", len(set(ids.tolist())))
