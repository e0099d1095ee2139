use clap::Parser;

fn main() {
    let cli = accshare::cli::Cli::parse();
    // The passes recurse over trees whose depth the parser bounds; a large stack keeps that bound
    // comfortable in debug builds too.
    let worker = std::thread::Builder::new()
        .name("accshare".into())
        .stack_size(256 << 20)
        .spawn(move || accshare::cli::run(cli));
    let code = match worker.map(|h| h.join()) {
        Ok(Ok(code)) => code,
        _ => {
            eprintln!("error: internal compiler error (please report it with the input file)");
            101
        }
    };
    std::process::exit(code);
}
