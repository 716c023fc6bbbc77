//! Versions from changes (seed 002): breaking changes need a major bump, anything else
//! that changes the contract (including wording: "description-only changes should be
//! MINOR at minimum") a minor one. A 0.y.z version follows Cargo's convention: y is the
//! breaking position.

use semver::{Version, VersionReq};

use super::{Change, Severity};

#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Bump {
    None,
    Patch,
    Minor,
    Major,
}

impl Bump {
    pub fn as_str(self) -> &'static str {
        match self {
            Bump::None => "none",
            Bump::Patch => "patch",
            Bump::Minor => "minor",
            Bump::Major => "major",
        }
    }
}

/// The bump one change of this severity needs: the one rule, used here and by SQL
/// (`semver_needed`, queries/drift/under_bumped.sql).
pub fn needed_for(severity: Severity) -> Bump {
    match severity {
        Severity::Breaking | Severity::LikelyBreaking => Bump::Major,
        _ => Bump::Minor,
    }
}

/// The bump `changes` need: the largest any of them needs.
pub fn needed<'a>(changes: impl IntoIterator<Item = &'a Change>) -> Bump {
    changes
        .into_iter()
        .map(|c| needed_for(c.severity))
        .max()
        .unwrap_or(Bump::None)
}

pub fn parse(v: &str) -> Result<Version, String> {
    Version::parse(v.trim().trim_start_matches('v'))
        .map_err(|e| format!("'{v}' is not a semantic version: {e}"))
}

/// The bump from `old` to `new` as declared; Err when it goes backwards.
pub fn declared(old: &Version, new: &Version) -> Result<Bump, String> {
    if new < old {
        return Err(format!("version went backwards: {old} -> {new}"));
    }
    // The breaking position: x in x.y.z, y in 0.y.z, z in 0.0.z.
    let breaking = |v: &Version| match (v.major, v.minor) {
        (0, 0) => (0, 0, v.patch),
        (0, m) => (0, m, 0),
        (x, _) => (x, 0, 0),
    };
    Ok(if breaking(new) != breaking(old) {
        Bump::Major
    } else if new.major > 0 && new.minor != old.minor {
        Bump::Minor
    } else if new.major == 0 && new.patch != old.patch {
        // 0.y.z: z is the only compatible position left, for fixes and additions alike.
        Bump::Minor
    } else if new != old {
        Bump::Patch
    } else {
        Bump::None
    })
}

/// An error message when the declared versions bump less than the changes need.
pub fn under_bump(old: &str, new: &str, need: Bump) -> Option<String> {
    let (o, n) = match (parse(old), parse(new)) {
        (Ok(o), Ok(n)) => (o, n),
        (Err(e), _) | (_, Err(e)) => return Some(e),
    };
    match declared(&o, &n) {
        Err(e) => Some(e),
        Ok(Bump::None) if need > Bump::None => Some(format!(
            "declared version stayed {n} but the changes need a {} bump",
            need.as_str()
        )),
        Ok(got) if got < need => Some(format!(
            "declared {o} -> {n} is a {} bump but the changes need {}",
            got.as_str(),
            need.as_str()
        )),
        Ok(_) => None,
    }
}

/// Whether a client pinned to `range` may call `version`.
pub fn allows(range: &str, version: &str) -> Result<bool, String> {
    let req =
        VersionReq::parse(range).map_err(|e| format!("'{range}' is not a version range: {e}"))?;
    Ok(req.matches(&parse(version)?))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn d(a: &str, b: &str) -> Result<Bump, String> {
        declared(&parse(a).unwrap(), &parse(b).unwrap())
    }

    #[test]
    fn declared_bumps() {
        assert_eq!(d("2.1.0", "3.0.0"), Ok(Bump::Major));
        assert_eq!(d("2.1.0", "2.2.0"), Ok(Bump::Minor));
        assert_eq!(d("2.1.0", "2.1.1"), Ok(Bump::Patch));
        assert_eq!(d("2.1.0", "2.1.0"), Ok(Bump::None));
        assert_eq!(d("0.3.1", "0.4.0"), Ok(Bump::Major));
        assert_eq!(d("0.3.1", "0.3.2"), Ok(Bump::Minor));
        assert_eq!(d("2.1.0", "2.1.1-rc.1"), Ok(Bump::Patch));
        assert_eq!(d("0.0.1", "0.0.2"), Ok(Bump::Major));
        assert!(d("2.1.0", "2.0.9").is_err());
    }

    #[test]
    fn under_bumps_and_ranges() {
        assert_eq!(
            under_bump("2.1.0", "2.2.0", Bump::Major).unwrap(),
            "declared 2.1.0 -> 2.2.0 is a minor bump but the changes need major"
        );
        assert_eq!(under_bump("2.1.0", "3.0.0", Bump::Major), None);
        assert_eq!(
            under_bump("2.1.0", "2.1.1", Bump::Minor).unwrap(),
            "declared 2.1.0 -> 2.1.1 is a patch bump but the changes need minor"
        );
        assert_eq!(allows("^2.0.0", "2.2.0"), Ok(true));
        assert_eq!(allows("^2.0.0", "3.0.0"), Ok(false));
        assert!(allows("^2.x.q", "3.0.0").is_err());
    }
}
