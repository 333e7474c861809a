//! Structs that Rust and WGSL share, declared once: [`wgsl_struct!`] declares the Rust struct
//! (`#[repr(C)]`, bytemuck `Pod`) and implements [`WgslStruct`] for it, whose [`WgslStruct::wgsl`]
//! writes the WGSL declaration from the same field list.
//!
//! **Type map.** `f32`, `u32`, `i32` map to themselves; `[T; 2]`, `[T; 3]`, `[T; 4]` of one of
//! them to `vec2<T>`, `vec3<T>`, `vec4<T>`; `[[f32; 4]; 4]` to `mat4x4<f32>` (columns); any
//! other `[T; N]` to `array<T, N>` with `N` evaluated in Rust. A field states its WGSL type where
//! it differs (`count: u32 as "atomic<u32>"`). `as pad` splits a field into `u32` words named
//! `NAME0`, `NAME1`, … (a uniform block takes no `array<u32, N>`: its stride would be 4).
//!
//! **Layout.** The map does not place fields: Rust lays them out in order (`repr(C)`, alignment
//! 4), WGSL by its own rules (a `vec3` or a struct of one aligned to 16, a uniform array's stride
//! a multiple of 16). Where they would differ the Rust side says so with explicit padding fields;
//! `tests/shaders.rs` checks every shared struct's offsets and sizes against naga's layout of the
//! generated text, so a difference fails a test instead of a frame.

/// Where shaders bind a struct: which layout rules of WGSL apply to it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Space {
    Uniform,
    Storage,
}

/// One member of the WGSL struct, with the byte offset and size of the Rust field (or word of a
/// padding field) it is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Member {
    pub name: String,
    /// Its WGSL type.
    pub ty: String,
    pub offset: usize,
    pub size: usize,
    /// The Rust field's doc lines, written into the WGSL as comments.
    pub doc: Vec<&'static str>,
}

/// A `#[repr(C)]` struct with a WGSL twin generated from its definition ([`wgsl_struct!`]).
pub trait WgslStruct: bytemuck::Pod {
    /// The Rust name.
    const RUST_NAME: &'static str;
    /// The WGSL name (the Rust one unless the declaration names another).
    const WGSL_NAME: &'static str;
    /// Where shaders bind it.
    const SPACE: Space;

    /// Its members in order, padding split into words.
    fn members() -> Vec<Member>;

    /// The WGSL declaration.
    fn wgsl() -> String {
        let mut out = format!("// `{}` of Rust (src/wgsl/shared.rs), generated.\nstruct {} {{\n", Self::RUST_NAME, Self::WGSL_NAME);
        for m in Self::members() {
            for line in &m.doc {
                out.push_str(&format!("    //{}\n", line.trim_end()));
            }
            out.push_str(&format!("    {}: {},\n", m.name, m.ty));
        }
        out.push_str("}\n");
        out
    }

    /// Everything a layout check needs, without the type.
    fn layout() -> Layout {
        Layout {
            rust_name: Self::RUST_NAME,
            wgsl_name: Self::WGSL_NAME,
            space: Self::SPACE,
            members: Self::members(),
            size: std::mem::size_of::<Self>(),
        }
    }
}

/// A shared struct as Rust lays it out, for comparing with naga's layout of the WGSL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    pub rust_name: &'static str,
    pub wgsl_name: &'static str,
    pub space: Space,
    pub members: Vec<Member>,
    pub size: usize,
}

/// Declares a `#[repr(C)]` struct shared with WGSL and implements [`WgslStruct`] for it. The
/// first attribute says where shaders bind it and, optionally, its WGSL name; every field may
/// carry doc comments (copied into the WGSL) and a WGSL type of its own (`as "atomic<u32>"`) or
/// `as pad`:
///
/// ```ignore
/// wgsl_struct! {
///     #[wgsl(storage, name = Emitter)]
///     /// One emitter as the GPU reads it.
///     #[repr(C)]
///     #[derive(Clone, Copy, Pod, Zeroable)]
///     pub struct EmitterGpu {
///         /// Unit direction.
///         pub direction: [f32; 3],
///         pub mass: f32,
///         pub _pad: [u32; 2] as pad,
///     }
/// }
/// ```
macro_rules! wgsl_struct {
    (
        #[wgsl($space:ident $(, name = $wgsl_name:ident)?)]
        $(#[$attr:meta])*
        $vis:vis struct $name:ident {
            $(
                $(#[doc = $doc:literal])*
                $fvis:vis $field:ident : $ty:tt $(as $wty:tt)?
            ),* $(,)?
        }
    ) => {
        $(#[$attr])*
        $vis struct $name {
            $(
                $(#[doc = $doc])*
                $fvis $field: $ty,
            )*
        }

        impl $crate::wgsl::structs::WgslStruct for $name {
            const RUST_NAME: &'static str = stringify!($name);
            const WGSL_NAME: &'static str = $crate::wgsl::structs::wgsl_struct!(@name $name $($wgsl_name)?);
            const SPACE: $crate::wgsl::structs::Space = $crate::wgsl::structs::wgsl_struct!(@space $space);

            fn members() -> Vec<$crate::wgsl::structs::Member> {
                let mut out = Vec::new();
                $(
                    $crate::wgsl::structs::wgsl_struct!(
                        @member out, $name, $field, $ty, [$($doc),*] $(, $wty)?
                    );
                )*
                out
            }
        }
    };

    (@name $name:ident) => { stringify!($name) };
    (@name $name:ident $wgsl_name:ident) => { stringify!($wgsl_name) };
    (@space uniform) => { $crate::wgsl::structs::Space::Uniform };
    (@space storage) => { $crate::wgsl::structs::Space::Storage };

    (@member $out:ident, $name:ident, $field:ident, $ty:tt, [$($doc:literal),*]) => {
        $crate::wgsl::structs::wgsl_struct!(@member $out, $name, $field, $ty, [$($doc),*], ($crate::wgsl::structs::wgsl_struct!(@type $ty)))
    };
    (@member $out:ident, $name:ident, $field:ident, $ty:tt, [$($doc:literal),*], pad) => {{
        let words = std::mem::size_of::<$ty>() / 4;
        for i in 0..words {
            $out.push($crate::wgsl::structs::Member {
                name: format!("{}{i}", stringify!($field)),
                ty: "u32".to_owned(),
                offset: std::mem::offset_of!($name, $field) + 4 * i,
                size: 4,
                doc: if i == 0 { vec![$($doc),*] } else { Vec::new() },
            });
        }
    }};
    (@member $out:ident, $name:ident, $field:ident, $ty:tt, [$($doc:literal),*], $wty:expr) => {
        $out.push($crate::wgsl::structs::Member {
            name: stringify!($field).to_owned(),
            ty: String::from($wty),
            offset: std::mem::offset_of!($name, $field),
            size: std::mem::size_of::<$ty>(),
            doc: vec![$($doc),*],
        })
    };

    (@type f32) => { String::from("f32") };
    (@type u32) => { String::from("u32") };
    (@type i32) => { String::from("i32") };
    (@type [[f32; 4]; 4]) => { String::from("mat4x4<f32>") };
    (@type [$s:ident; 2]) => { format!("vec2<{}>", $crate::wgsl::structs::wgsl_struct!(@scalar $s)) };
    (@type [$s:ident; 3]) => { format!("vec3<{}>", $crate::wgsl::structs::wgsl_struct!(@scalar $s)) };
    (@type [$s:ident; 4]) => { format!("vec4<{}>", $crate::wgsl::structs::wgsl_struct!(@scalar $s)) };
    (@type [$t:tt; $n:expr]) => { format!("array<{}, {}>", $crate::wgsl::structs::wgsl_struct!(@type $t), $n) };
    (@scalar f32) => { "f32" };
    (@scalar u32) => { "u32" };
    (@scalar i32) => { "i32" };
}

pub(crate) use wgsl_struct;

#[cfg(test)]
mod tests {
    use super::*;
    use bytemuck::{Pod, Zeroable};

    const N: usize = 6;

    wgsl_struct! {
        #[wgsl(storage, name = Probe)]
        #[repr(C)]
        #[derive(Clone, Copy, Pod, Zeroable)]
        struct ProbeGpu {
            /// A position.
            /// Two lines.
            at: [f32; 3],
            count: u32 as "atomic<u32>",
            view: [[f32; 4]; 4],
            cells: [u32; 2],
            list: [i32; N],
            table: [[f32; 4]; 3],
            _pad: [u32; 4] as pad,
        }
    }

    wgsl_struct! {
        #[wgsl(uniform)]
        #[repr(C)]
        #[derive(Clone, Copy, Pod, Zeroable)]
        struct Misaligned {
            a: f32,
            v: [f32; 3],
        }
    }

    /// (offset, size) of each member as naga lays out `T`'s generated WGSL, bound in its space.
    fn naga_layout<T: WgslStruct>() -> (Vec<(usize, usize)>, usize) {
        let space = if T::SPACE == Space::Uniform { "uniform" } else { "storage, read_write" };
        let text = format!("{}@group(0) @binding(0) var<{space}> probe: {};\n", T::wgsl(), T::WGSL_NAME);
        let module = naga::front::wgsl::parse_str(&text).unwrap();
        naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all()).validate(&module).unwrap();
        let mut layouter = naga::proc::Layouter::default();
        layouter.update(module.to_ctx()).unwrap();
        let ty = module.types.iter().find(|(_, t)| t.name.as_deref() == Some(T::WGSL_NAME)).unwrap().1;
        let naga::TypeInner::Struct { members, span } = &ty.inner else { panic!() };
        (members.iter().map(|m| (m.offset as usize, layouter[m.ty].size as usize)).collect(), *span as usize)
    }

    fn rust_layout<T: WgslStruct>() -> (Vec<(usize, usize)>, usize) {
        (T::members().iter().map(|m| (m.offset, m.size)).collect(), std::mem::size_of::<T>())
    }

    #[test]
    fn naga_reads_the_generated_layout_and_a_difference_shows() {
        assert_eq!(naga_layout::<ProbeGpu>(), rust_layout::<ProbeGpu>());
        // a vec3 is aligned to 16 in WGSL, to 4 in Rust: what the layout tests catch
        assert_eq!(rust_layout::<Misaligned>(), (vec![(0, 4), (4, 12)], 16));
        assert_eq!(naga_layout::<Misaligned>(), (vec![(0, 4), (16, 12)], 32));
    }

    #[test]
    fn the_type_map_and_the_overrides() {
        let text = ProbeGpu::wgsl();
        let body: Vec<&str> = text.lines().filter(|l| !l.trim_start().starts_with("//")).collect();
        assert_eq!(
            body,
            [
                "struct Probe {",
                "    at: vec3<f32>,",
                "    count: atomic<u32>,",
                "    view: mat4x4<f32>,",
                "    cells: vec2<u32>,",
                "    list: array<i32, 6>,",
                "    table: array<vec4<f32>, 3>,",
                "    _pad0: u32,",
                "    _pad1: u32,",
                "    _pad2: u32,",
                "    _pad3: u32,",
                "}"
            ]
        );
        assert!(text.contains("    // A position.\n    // Two lines.\n    at: vec3<f32>,"), "{text}");
        let m = ProbeGpu::members();
        assert_eq!((m[1].offset, m[1].size), (12, 4));
        assert_eq!(m.iter().map(|m| (m.offset, m.size)).next_back(), Some((std::mem::size_of::<ProbeGpu>() - 4, 4)));
        assert_eq!(ProbeGpu::SPACE, Space::Storage);
        assert_eq!((ProbeGpu::RUST_NAME, ProbeGpu::WGSL_NAME), ("ProbeGpu", "Probe"));
    }
}
