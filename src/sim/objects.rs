//! Which object of the scene each particle id belongs to: a fluid entry, the tank's walls, a
//! solid, or the emitters' fluid. Ids are laid out by the setup (`crate::scene::setup::build`)
//! in runs, fluid entries first, then the tank, then each solid's shell, then the free slots the
//! emitters fill, so the map is a list of runs. The export writes the object of every particle
//! beside its `kind`, and the list of objects as `objects.csv`.

/// One object: its number (what a particle's `object` holds), what it is, and its name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Object {
    pub number: u32,
    /// `fluid`, `tank`, `solid` or `emitted`.
    pub kind: &'static str,
    /// The scene's entry: `fluid[0]`, `solids[2]`, `walls`, `emitters`.
    pub entry: String,
    /// Its particles: the ids `first..first + count`.
    pub first: u32,
    pub count: u32,
}

/// The objects of a scene in id order.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ObjectMap {
    pub objects: Vec<Object>,
}

impl ObjectMap {
    /// The map of a layout: `fluid[e]` particles of each fluid entry, `tank` wall particles,
    /// `solids[i]` of each solid's shell and `free` slots, in that id order. Numbers: the fluid
    /// entries 0.., then the tank, then the solids, then the emitted fluid.
    pub fn new(fluid: &[u32], tank: u32, solids: &[u32], free: u32) -> Self {
        let mut objects = Vec::new();
        let mut first = 0;
        let mut push = |kind, entry: String, count: u32| {
            objects.push(Object { number: objects.len() as u32, kind, entry, first, count });
            first += count;
        };
        fluid.iter().enumerate().for_each(|(e, &n)| push("fluid", format!("fluid[{e}]"), n));
        push("tank", "walls".into(), tank);
        solids.iter().enumerate().for_each(|(i, &n)| push("solid", format!("solids[{i}]"), n));
        push("emitted", "emitters".into(), free);
        Self { objects }
    }

    /// The object number of particle `id` (the last object for an id past the map: the
    /// emitters' slots).
    pub fn object_of(&self, id: u32) -> u32 {
        let k = self.objects.partition_point(|o| o.first + o.count <= id);
        self.objects.get(k).or(self.objects.last()).map_or(0, |o| o.number)
    }

    /// `objects.csv`: one row per object.
    pub fn csv(&self) -> String {
        let mut s = String::from("object,kind,entry,first_id,particles\n");
        for o in &self.objects {
            s.push_str(&format!("{},{},{},{},{}\n", o.number, o.kind, o.entry, o.first, o.count));
        }
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_id_finds_its_object() {
        let m = ObjectMap::new(&[3, 2], 4, &[2, 0, 1], 2);
        let objects: Vec<u32> = (0..16).map(|id| m.object_of(id)).collect();
        // fluid[0] 0–2, fluid[1] 3–4, tank 5–8, solids[0] 9–10, solids[1] none, solids[2] 11,
        // emitted 12–13 (and past the map)
        assert_eq!(objects, [0, 0, 0, 1, 1, 2, 2, 2, 2, 3, 3, 5, 6, 6, 6, 6]);
        assert!(m.csv().starts_with("object,kind,entry,first_id,particles\n0,fluid,fluid[0],0,3\n"));
        assert_eq!(m.csv().lines().count(), 1 + 7);
    }
}
