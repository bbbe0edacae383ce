pub fn f(){}
