//! Asking questions at the terminal (or of piped standard input, one answer a line):
//! bad answers get the reason and the question again.

use std::io::{BufRead, Write};

/// What came back from a question.
pub enum Answer<T> {
    /// A valid answer.
    Value(T),
    /// The player asked to quit (`q`), or input ended.
    Quit,
}

/// Reads answers line by line and writes prompts and messages.
pub struct Prompter<R, W> {
    input: R,
    out: W,
    echo: bool,
}

impl<R: BufRead, W: Write> Prompter<R, W> {
    /// A prompter over `input` and `out`; `echo` repeats each answer (for piped input,
    /// so the transcript reads like a session).
    pub fn new(input: R, out: W, echo: bool) -> Self {
        Prompter { input, out, echo }
    }

    /// Writes a line.
    pub fn say(&mut self, text: impl AsRef<str>) {
        let _ = writeln!(self.out, "{}", text.as_ref());
    }

    /// Asks until `parse` accepts the answer; `q`/`quit` or the end of input quits.
    pub fn ask<T>(
        &mut self,
        question: &str,
        mut parse: impl FnMut(&str) -> Result<T, String>,
    ) -> Answer<T> {
        loop {
            let _ = write!(self.out, "{question} ");
            let _ = self.out.flush();
            let mut line = String::new();
            match self.input.read_line(&mut line) {
                Ok(0) | Err(_) => {
                    let _ = writeln!(self.out);
                    return Answer::Quit;
                }
                Ok(_) => {}
            }
            let answer = line.trim();
            if self.echo {
                let _ = writeln!(self.out, "{answer}");
            }
            if answer.eq_ignore_ascii_case("q") || answer.eq_ignore_ascii_case("quit") {
                return Answer::Quit;
            }
            match parse(answer) {
                Ok(v) => return Answer::Value(v),
                Err(why) => {
                    let _ = writeln!(self.out, "  ! {why}");
                }
            }
        }
    }
}
