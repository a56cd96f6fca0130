//! The redaction rules as their source states them, read with `syn` and never compiled: the
//! patterns they give `Matcher::new` and, per catalogue rule in catalogue order, its keywords.
//!
//! Reading the source, rather than moving the text into data modules the build script and the
//! crate would both include, keeps a rule in one place: its pattern, keywords, examples and
//! code stay in its entry, and adding a rule is adding that entry. The reading is small and
//! literal, and what it cannot read costs time, never a rule:
//!
//! * a pattern is the argument of a call `Matcher::new(ARG)` anywhere in a family file, where
//!   `ARG` is a string literal, a `concat!` of them, a `const` of the same file holding one,
//!   or an index into a `const` array of them (every element when the index is not a literal);
//!   a pattern it cannot read is compiled at start-up, and a test names it;
//! * a rule is a `static NAME: Rule = Rule { keywords: &[..], .. }` of a family file, and the
//!   catalogue's order is that of `&family::NAME` in `static CATALOGUE` (src/redact/mod.rs); a
//!   rule whose keywords it cannot read gets a table built at start-up, and a test fails;
//! * an item-level invocation of a `macro_rules!` macro defined in the same file (`vendor!`)
//!   is expanded first, for the simple macros the rules use: one arm matched without
//!   backtracking, `$x:frag` metavariables and a trailing `$(,)?`, no repetitions.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use proc_macro2::{Delimiter, Group, TokenStream, TokenTree};
use syn::punctuated::Punctuated;
use syn::visit::Visit;
use syn::{Expr, Item, Lit};

/// What the build script reads from the rules' source.
pub struct RuleSource {
    /// Every distinct pattern read, family files in name order, each in source order.
    pub patterns: Vec<String>,
    /// Per catalogue rule in catalogue order: its `family::NAME`, and its keywords when read.
    pub catalogue: Vec<(String, Option<Vec<String>>)>,
    /// Every file read, for `cargo:rerun-if-changed`.
    pub files: Vec<PathBuf>,
}

/// Reads the catalogue (`src/redact/mod.rs`) and the family files (`src/redact/rules/*.rs`)
/// under `root`. Panics, failing the build, only when a file cannot be read or parsed, or no
/// catalogue is found: the crate would not build either.
pub fn read(root: &Path) -> RuleSource {
    let rules_dir = root.join("src/redact/rules");
    let mut family_files: Vec<PathBuf> = std::fs::read_dir(&rules_dir)
        .unwrap_or_else(|e| panic!("{}: {e}", rules_dir.display()))
        .map(|entry| entry.expect("a directory entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == "rs"))
        .collect();
    family_files.sort();

    let mut patterns: Vec<String> = Vec::new();
    let mut rules: HashMap<(String, String), Option<Vec<String>>> = HashMap::new();
    for path in &family_files {
        let family = path.file_stem().expect("a file name").to_string_lossy();
        let family = family.into_owned();
        let file = parse(path);
        let mut reader = Reader::new(&file);
        reader.read_items(&file.items, 0);
        for p in reader.patterns {
            if !patterns.contains(&p) {
                patterns.push(p);
            }
        }
        for (name, keywords) in reader.rules {
            rules.insert((family.clone(), name), keywords);
        }
    }

    let catalogue_path = root.join("src/redact/mod.rs");
    let catalogue = catalogue_order(&parse(&catalogue_path))
        .into_iter()
        .map(|(family, name)| {
            let keywords = rules
                .get(&(family.clone(), name.clone()))
                .cloned()
                .flatten();
            (format!("{family}::{name}"), keywords)
        })
        .collect();
    let mut files = vec![rules_dir, catalogue_path];
    files.extend(family_files);
    RuleSource {
        patterns,
        catalogue,
        files,
    }
}

fn parse(path: &Path) -> syn::File {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    syn::parse_file(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// `(family, NAME)` for each `&family::NAME` of `static CATALOGUE`, in order.
fn catalogue_order(file: &syn::File) -> Vec<(String, String)> {
    let list = file.items.iter().find_map(|item| match item {
        Item::Static(s) if s.ident == "CATALOGUE" => Some(&*s.expr),
        _ => None,
    });
    let Some(Expr::Array(list)) = list else {
        panic!("src/redact/mod.rs: no `static CATALOGUE: [&Rule; N] = [..]` to read");
    };
    list.elems
        .iter()
        .map(|e| {
            let path = match e {
                Expr::Reference(r) => match &*r.expr {
                    Expr::Path(p) => Some(&p.path),
                    _ => None,
                },
                _ => None,
            };
            let segments: Vec<String> = path
                .map(|p| p.segments.iter().map(|s| s.ident.to_string()).collect())
                .unwrap_or_default();
            match segments.as_slice() {
                [.., family, name] => (family.clone(), name.clone()),
                _ => panic!("src/redact/mod.rs: a `CATALOGUE` entry is not `&family::NAME`"),
            }
        })
        .collect()
}

/// One family file's reading.
struct Reader<'f> {
    /// Its `const` items, by name.
    consts: HashMap<String, &'f Expr>,
    /// Its `macro_rules!` macros, by name: each arm's matcher and transcriber.
    macros: HashMap<String, Vec<(TokenStream, TokenStream)>>,
    patterns: Vec<String>,
    /// Each `static NAME: Rule`, with its keywords when read.
    rules: Vec<(String, Option<Vec<String>>)>,
}

impl<'f> Reader<'f> {
    fn new(file: &'f syn::File) -> Reader<'f> {
        let mut consts = HashMap::new();
        let mut macros = HashMap::new();
        for item in &file.items {
            match item {
                Item::Const(c) => {
                    consts.insert(c.ident.to_string(), &*c.expr);
                }
                Item::Macro(m) if m.mac.path.is_ident("macro_rules") => {
                    if let Some(name) = &m.ident {
                        macros.insert(name.to_string(), arms(m.mac.tokens.clone()));
                    }
                }
                _ => {}
            }
        }
        Reader {
            consts,
            macros,
            patterns: Vec::new(),
            rules: Vec::new(),
        }
    }

    /// Reads `items`, expanding the file's own macros where they are invoked.
    fn read_items(&mut self, items: &[Item], depth: usize) {
        for item in items {
            let mut visitor = Calls { reader: self };
            visitor.visit_item(item);
            match item {
                Item::Static(s) => {
                    if let Expr::Struct(rule) = &*s.expr
                        && rule.path.is_ident("Rule")
                    {
                        let keywords = rule
                            .fields
                            .iter()
                            .find(|f| matches!(&f.member, syn::Member::Named(n) if n == "keywords"))
                            .and_then(|f| self.strings(&f.expr));
                        self.rules.push((s.ident.to_string(), keywords));
                    }
                }
                Item::Macro(m) if depth < 4 => {
                    let name = m.mac.path.get_ident().map(|i| i.to_string());
                    let expanded = name
                        .and_then(|n| self.macros.get(&n))
                        .and_then(|arms| expand(arms, m.mac.tokens.clone()))
                        .and_then(|tokens| syn::parse2::<syn::File>(tokens).ok());
                    if let Some(file) = expanded {
                        self.read_items(&file.items, depth + 1);
                    }
                }
                _ => {}
            }
        }
    }

    /// The one string `expr` stands for.
    fn string(&self, expr: &Expr) -> Option<String> {
        self.string_at(expr, 0)
    }

    fn string_at(&self, expr: &Expr, depth: usize) -> Option<String> {
        if depth > 8 {
            return None;
        }
        match expr {
            Expr::Lit(l) => match &l.lit {
                Lit::Str(s) => Some(s.value()),
                _ => None,
            },
            Expr::Macro(m) if m.mac.path.is_ident("concat") => {
                let parts = m
                    .mac
                    .parse_body_with(Punctuated::<Expr, syn::Token![,]>::parse_terminated)
                    .ok()?;
                parts.iter().map(|p| self.string_at(p, depth + 1)).collect()
            }
            Expr::Path(p) => {
                let c = self.consts.get(&p.path.get_ident()?.to_string())?;
                self.string_at(c, depth + 1)
            }
            Expr::Index(i) => {
                let Expr::Lit(syn::ExprLit {
                    lit: Lit::Int(at), ..
                }) = &*i.index
                else {
                    return None;
                };
                let at: usize = at.base10_parse().ok()?;
                self.string_at(self.array(&i.expr)?.elems.iter().nth(at)?, depth + 1)
            }
            Expr::Paren(p) => self.string_at(&p.expr, depth + 1),
            Expr::Group(g) => self.string_at(&g.expr, depth + 1),
            _ => None,
        }
    }

    /// The `const` array `expr` names.
    fn array(&self, expr: &Expr) -> Option<&'f syn::ExprArray> {
        let Expr::Path(p) = expr else { return None };
        match self.consts.get(&p.path.get_ident()?.to_string())? {
            Expr::Array(a) => Some(a),
            _ => None,
        }
    }

    /// The strings of `&[A, B, ..]`, every one read, or `None`.
    fn strings(&self, expr: &Expr) -> Option<Vec<String>> {
        match expr {
            Expr::Reference(r) => self.strings(&r.expr),
            Expr::Paren(p) => self.strings(&p.expr),
            Expr::Group(g) => self.strings(&g.expr),
            Expr::Array(a) => a.elems.iter().map(|e| self.string(e)).collect(),
            Expr::Path(_) => self.strings(&Expr::Array(self.array(expr)?.clone())),
            _ => None,
        }
    }

    /// The patterns `Matcher::new(arg)` may be given: the one string `arg` stands for, or
    /// every element of the array a non-literal index reads.
    fn patterns_of(&self, arg: &Expr) -> Vec<String> {
        if let Some(s) = self.string(arg) {
            return vec![s];
        }
        match arg {
            Expr::Index(i) => self
                .array(&i.expr)
                .map(|a| a.elems.iter().filter_map(|e| self.string(e)).collect())
                .unwrap_or_default(),
            _ => Vec::new(),
        }
    }
}

/// Finds the calls `Matcher::new(arg)` anywhere in an item.
struct Calls<'r, 'f> {
    reader: &'r mut Reader<'f>,
}

impl<'ast> Visit<'ast> for Calls<'_, '_> {
    fn visit_expr_call(&mut self, call: &'ast syn::ExprCall) {
        if let Expr::Path(f) = &*call.func {
            let names: Vec<String> = f
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            if names.ends_with(&["Matcher".to_string(), "new".to_string()]) && call.args.len() == 1
            {
                let found = self.reader.patterns_of(&call.args[0]);
                self.reader.patterns.extend(found);
            }
        }
        syn::visit::visit_expr_call(self, call);
    }
}

/// The arms of a `macro_rules!` body: `(matcher) => { transcriber };` …
fn arms(body: TokenStream) -> Vec<(TokenStream, TokenStream)> {
    let tokens: Vec<TokenTree> = body.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i + 3 < tokens.len() {
        match (&tokens[i], &tokens[i + 1], &tokens[i + 2], &tokens[i + 3]) {
            (
                TokenTree::Group(m),
                TokenTree::Punct(a),
                TokenTree::Punct(b),
                TokenTree::Group(t),
            ) if a.as_char() == '=' && b.as_char() == '>' => {
                out.push((m.stream(), t.stream()));
                i += 4;
            }
            _ => return Vec::new(),
        }
        if matches!(tokens.get(i), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            i += 1;
        }
    }
    out
}

/// The first arm that matches `input`, transcribed.
fn expand(arms: &[(TokenStream, TokenStream)], input: TokenStream) -> Option<TokenStream> {
    let input: Vec<TokenTree> = input.into_iter().collect();
    arms.iter().find_map(|(matcher, transcriber)| {
        let matcher: Vec<TokenTree> = matcher.clone().into_iter().collect();
        let mut binds = HashMap::new();
        let used = match_tokens(&matcher, &input, &mut binds)?;
        (used == input.len()).then(|| transcribe(transcriber.clone(), &binds))?
    })
}

fn is_punct(t: Option<&TokenTree>, c: char) -> bool {
    matches!(t, Some(TokenTree::Punct(p)) if p.as_char() == c)
}

/// Matches `matcher` against the start of `input`, binding its metavariables; how many input
/// tokens it took.
fn match_tokens(
    matcher: &[TokenTree],
    input: &[TokenTree],
    binds: &mut HashMap<String, Vec<TokenTree>>,
) -> Option<usize> {
    let (mut m, mut i) = (0, 0);
    while m < matcher.len() {
        if is_punct(matcher.get(m), '$') {
            match (matcher.get(m + 1), matcher.get(m + 2), matcher.get(m + 3)) {
                // `$name:fragment`
                (
                    Some(TokenTree::Ident(name)),
                    Some(TokenTree::Punct(colon)),
                    Some(TokenTree::Ident(frag)),
                ) if colon.as_char() == ':' => {
                    m += 4;
                    let take = match frag.to_string().as_str() {
                        "ident" | "tt" | "lifetime" => 1,
                        "literal" => 1 + usize::from(is_punct(input.get(i), '-')),
                        // Up to the next token the matcher names, or its end.
                        _ => {
                            let stop = stop_token(&matcher[m..]);
                            input[i..]
                                .iter()
                                .position(|t| Some(t.to_string()) == stop)
                                .unwrap_or(input.len() - i)
                        }
                    };
                    if take == 0 || i + take > input.len() {
                        return None;
                    }
                    binds.insert(name.to_string(), input[i..i + take].to_vec());
                    i += take;
                }
                // `$( literal tokens )?`
                (Some(TokenTree::Group(g)), Some(op), _) if is_punct(Some(op), '?') => {
                    let inner: Vec<TokenTree> = g.stream().into_iter().collect();
                    if inner.iter().any(|t| is_punct(Some(t), '$')) {
                        return None;
                    }
                    let n = inner.len();
                    if i + n <= input.len()
                        && inner
                            .iter()
                            .zip(&input[i..i + n])
                            .all(|(a, b)| a.to_string() == b.to_string())
                    {
                        i += n;
                    }
                    m += 3;
                }
                _ => return None,
            }
            continue;
        }
        let got = input.get(i)?;
        match (&matcher[m], got) {
            (TokenTree::Group(a), TokenTree::Group(b)) if a.delimiter() == b.delimiter() => {
                let inner: Vec<TokenTree> = a.stream().into_iter().collect();
                let given: Vec<TokenTree> = b.stream().into_iter().collect();
                if match_tokens(&inner, &given, binds)? != given.len() {
                    return None;
                }
            }
            (want, got) if want.to_string() == got.to_string() => {}
            _ => return None,
        }
        m += 1;
        i += 1;
    }
    Some(i)
}

/// The token that ends an `expr` metavariable followed by `rest`: the next token the matcher
/// names, or the first of a `$( .. )?` that follows.
fn stop_token(rest: &[TokenTree]) -> Option<String> {
    match rest.first()? {
        t if !is_punct(Some(t), '$') => Some(t.to_string()),
        _ => match rest.get(1)? {
            TokenTree::Group(g) => g.stream().into_iter().next().map(|t| t.to_string()),
            _ => None,
        },
    }
}

/// `transcriber` with each bound `$name` replaced; `None` at a repetition.
fn transcribe(
    transcriber: TokenStream,
    binds: &HashMap<String, Vec<TokenTree>>,
) -> Option<TokenStream> {
    let tokens: Vec<TokenTree> = transcriber.into_iter().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            TokenTree::Punct(p) if p.as_char() == '$' => match tokens.get(i + 1) {
                Some(TokenTree::Ident(name)) => {
                    // One token as it is; more, as the one expression they are.
                    match binds.get(&name.to_string())?.as_slice() {
                        [one] => out.push(one.clone()),
                        many => out.push(TokenTree::Group(Group::new(
                            Delimiter::None,
                            many.iter().cloned().collect(),
                        ))),
                    }
                    i += 2;
                    continue;
                }
                _ => return None,
            },
            TokenTree::Group(g) => {
                let inner = transcribe(g.stream(), binds)?;
                out.push(TokenTree::Group(Group::new(g.delimiter(), inner)));
            }
            t => out.push(t.clone()),
        }
        i += 1;
    }
    Some(out.into_iter().collect())
}
