fn main() {
    // The C grammar lives in grammar/ (next to the pest grammar for pragmas); the generated
    // parser goes to OUT_DIR and is included by `src/front/parser.rs`.
    println!("cargo:rerun-if-changed=grammar/c.lalrpop");
    lalrpop::Configuration::new()
        .set_in_dir("grammar")
        .set_out_dir(std::env::var("OUT_DIR").expect("OUT_DIR"))
        .process()
        .expect("lalrpop failed on grammar/c.lalrpop");
}
