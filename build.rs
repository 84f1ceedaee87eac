// The migrations are embedded in the binary (diesel_migrations::embed_migrations!), so a new or
// changed migration file must rebuild the crate.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
