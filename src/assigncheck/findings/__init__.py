"""What makes a finding: the shrinker (`minimize`) and what makes two findings the same bug (`signature`)."""
