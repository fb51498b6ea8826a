//! Asking questions at the terminal (or of piped standard input, one answer a line):
//! bad answers get the reason and the question again.
//!
//! Input is bounded. An answer line is read without ever holding more than
//! [`MAX_ANSWER`] bytes of it: a longer line is read to its end and dropped as it
//! comes, then refused with the reason and asked again (a pasted paragraph, or a
//! stream of garbage, costs one refusal per line and no memory). A line that is not
//! UTF-8 text is refused the same way, naming the line and the first bad byte: it is
//! one bad answer like any other, and the table goes on with the next line. Only the
//! end of the input (or an error reading it, which is said) leaves the table.

use std::io::{BufRead, ErrorKind, Write};

/// The longest answer line taken, in bytes (its line break aside): 4 KiB. The longest
/// real answer is an amount or a word (`surrender`); 4 KiB is far beyond any of them,
/// and far beyond what a person types, while bounding what one line can cost.
pub const MAX_ANSWER: usize = 4096;

/// The widest line the table writes, in characters (display columns: the suits are
/// one column each): a terminal's 80 columns.
pub const WIDTH: usize = 80;

/// The widest last line of a question: room for the answer after it.
const QUESTION_WIDTH: usize = WIDTH - 10;

/// `line` in lines of at most `width` characters, broken at spaces; a continued line
/// is indented two spaces more than the line it continues. A word longer than a line
/// stands alone on its line.
pub fn wrap(line: &str, width: usize) -> Vec<String> {
    if line.chars().count() <= width {
        return vec![line.to_string()];
    }
    let lead = line.len() - line.trim_start_matches(' ').len();
    let indent = " ".repeat((lead + 2).min(width / 2));
    let mut out: Vec<String> = Vec::new();
    let mut cur = " ".repeat(lead);
    let mut cur_len = lead;
    // Whether the current line has no word yet.
    let mut fresh = true;
    for word in line[lead..].split(' ') {
        let n = word.chars().count();
        if !fresh && cur_len + 1 + n > width {
            out.push(std::mem::replace(&mut cur, indent.clone()));
            cur_len = indent.len();
            fresh = true;
        }
        if !fresh {
            cur.push(' ');
            cur_len += 1;
        }
        cur.push_str(word);
        cur_len += n;
        fresh = false;
    }
    out.push(cur);
    out
}

/// What came back from a question.
pub enum Answer<T> {
    /// A valid answer.
    Value(T),
    /// The player asked to quit (`q`), or input ended.
    Quit,
}

/// One line of input.
enum Line {
    /// A line of text, its line break removed.
    Text(String),
    /// A line longer than [`MAX_ANSWER`] bytes (read to its end and dropped).
    TooLong,
    /// A line that is not UTF-8: the first bad byte, and its position (from 1).
    NotUtf8 { byte: u8, position: usize },
    /// The end of the input.
    End,
    /// The input could not be read.
    Failed(std::io::Error),
}

/// Reads answers line by line and writes prompts and messages.
pub struct Prompter<R, W> {
    input: R,
    out: W,
    echo: bool,
    /// Lines read so far (for messages: "line 3 of the input").
    lines: u64,
}

impl<R: BufRead, W: Write> Prompter<R, W> {
    /// A prompter over `input` and `out`; `echo` repeats each answer (for piped input,
    /// so the transcript reads like a session).
    pub fn new(input: R, out: W, echo: bool) -> Self {
        Prompter {
            input,
            out,
            echo,
            lines: 0,
        }
    }

    /// Writes a line (or lines), each within [`WIDTH`] columns.
    pub fn say(&mut self, text: impl AsRef<str>) {
        for line in text.as_ref().split('\n') {
            for l in wrap(line, WIDTH) {
                let _ = writeln!(self.out, "{l}");
            }
        }
    }

    /// Reads one line, holding at most [`MAX_ANSWER`] bytes of it (plus its line
    /// break): the rest of a longer line is consumed from the reader's buffer and
    /// dropped as it comes.
    fn read_line(&mut self) -> Line {
        // Room for the answer and a `\r\n`.
        let cap = MAX_ANSWER + 2;
        let mut kept: Vec<u8> = Vec::new();
        let mut too_long = false;
        let mut read_any = false;
        loop {
            let chunk = match self.input.fill_buf() {
                Ok(c) => c,
                Err(e) if e.kind() == ErrorKind::Interrupted => continue,
                Err(e) => return Line::Failed(e),
            };
            if chunk.is_empty() {
                if !read_any {
                    return Line::End;
                }
                break; // a last line without a line break
            }
            read_any = true;
            let (used, ended) = match chunk.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (chunk.len(), false),
            };
            if !too_long {
                if kept.len() + used > cap {
                    too_long = true;
                    kept = Vec::new();
                } else {
                    kept.extend_from_slice(&chunk[..used]);
                }
            }
            self.input.consume(used);
            if ended {
                break;
            }
        }
        self.lines += 1;
        if kept.last() == Some(&b'\n') {
            kept.pop();
        }
        if kept.last() == Some(&b'\r') {
            kept.pop();
        }
        if too_long || kept.len() > MAX_ANSWER {
            return Line::TooLong;
        }
        match String::from_utf8(kept) {
            Ok(s) => Line::Text(s),
            Err(e) => {
                let at = e.utf8_error().valid_up_to();
                Line::NotUtf8 {
                    byte: e.as_bytes()[at],
                    position: at + 1,
                }
            }
        }
    }

    /// Asks until `parse` accepts the answer; `q`/`quit` or the end of input quits. An
    /// answer `help` knows (`?`, `rules`, ...) is answered with its text and the
    /// question asked again.
    pub fn ask_with<T>(
        &mut self,
        question: &str,
        help: impl Fn(&str) -> Option<String>,
        mut parse: impl FnMut(&str) -> Result<T, String>,
    ) -> Answer<T> {
        let mut lines = wrap(question, QUESTION_WIDTH);
        let last = lines.pop().unwrap_or_default();
        loop {
            for l in &lines {
                let _ = writeln!(self.out, "{l}");
            }
            let _ = write!(self.out, "{last} ");
            let _ = self.out.flush();
            let line = match self.read_line() {
                Line::Text(s) => s,
                Line::End => {
                    let _ = writeln!(self.out);
                    return Answer::Quit;
                }
                Line::Failed(e) => {
                    let _ = writeln!(self.out);
                    let _ = writeln!(
                        self.out,
                        "  ! cannot read the input after line {} ({e}): leaving the table",
                        self.lines
                    );
                    return Answer::Quit;
                }
                Line::TooLong => {
                    if self.echo {
                        let _ = writeln!(self.out);
                    }
                    let _ = writeln!(
                        self.out,
                        "  ! an answer is at most {MAX_ANSWER} bytes: line {} of the input is \
                         longer, and is not taken",
                        self.lines
                    );
                    continue;
                }
                Line::NotUtf8 { byte, position } => {
                    if self.echo {
                        let _ = writeln!(self.out);
                    }
                    let _ = writeln!(
                        self.out,
                        "  ! line {} of the input is not UTF-8 text (byte {byte:#04X} at \
                         position {position}): it is not taken",
                        self.lines
                    );
                    continue;
                }
            };
            let answer = line.trim();
            if self.echo {
                let _ = writeln!(self.out, "{answer}");
            }
            if answer.eq_ignore_ascii_case("q") || answer.eq_ignore_ascii_case("quit") {
                return Answer::Quit;
            }
            if let Some(text) = help(&answer.to_ascii_lowercase()) {
                self.say(text);
                continue;
            }
            match parse(answer) {
                Ok(v) => return Answer::Value(v),
                Err(why) => self.say(format!("  ! {why}")),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every answer `ask` accepts from `input` (any line is accepted), and what it wrote.
    fn answers(input: &[u8]) -> (Vec<String>, String) {
        let mut out = Vec::new();
        let mut got = Vec::new();
        {
            // A small buffer, so lines cross many reads.
            let reader = std::io::BufReader::with_capacity(7, input);
            let mut p = Prompter::new(reader, &mut out, false);
            while let Answer::Value(v) = p.ask_with("?", |_| None, |s| Ok(s.to_string())) {
                got.push(v);
            }
        }
        (got, String::from_utf8(out).unwrap())
    }

    #[test]
    fn wrap_breaks_at_spaces_within_the_width_and_indents_what_follows() {
        assert_eq!(wrap("short", 10), ["short"]);
        let w = wrap("  ! one two three four five six", 12);
        assert_eq!(w, ["  ! one two", "    three", "    four", "    five six"]);
        assert!(w.iter().all(|l| l.chars().count() <= 12));
        // A word longer than the width stands alone.
        assert_eq!(
            wrap("a 0123456789abc b", 10),
            ["a", "  0123456789abc", "  b"]
        );
        // Characters, not bytes: suits are one column.
        assert_eq!(wrap("7♥ 7♥ 7♥", 8), ["7♥ 7♥ 7♥"]);
    }

    #[test]
    fn lines_up_to_the_limit_are_taken_and_longer_ones_refused() {
        let exact = "9".repeat(MAX_ANSWER);
        let over = "9".repeat(MAX_ANSWER + 1);
        let input = format!("a\r\n{exact}\n{over}\r\nb\n{over}");
        let (got, out) = answers(input.as_bytes());
        assert_eq!(got, vec!["a".to_string(), exact, "b".to_string()]);
        assert_eq!(
            out.matches("at most 4096 bytes: line 3").count(),
            1,
            "{out}"
        );
        assert_eq!(
            out.matches("at most 4096 bytes: line 5").count(),
            1,
            "{out}"
        );
    }

    #[test]
    fn a_line_that_is_not_utf8_is_refused_and_the_next_one_taken() {
        let (got, out) = answers(b"ok\n\xe2\x82\n\xc3\xa9t\xc3\xa9");
        assert_eq!(got, vec!["ok".to_string(), "\u{e9}t\u{e9}".to_string()]);
        assert!(
            out.contains("line 2 of the input is not UTF-8 text (byte 0xE2 at position 1)"),
            "{out}"
        );
    }
}
