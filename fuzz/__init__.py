"""fuzz"""
